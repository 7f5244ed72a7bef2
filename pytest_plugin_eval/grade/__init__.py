"""Judging a run: the grader types and the texts they read, the LLM judge, the engine that applies a case's
graders in an arm, the same graders as assertion helpers, and the controls a judge must fail."""
