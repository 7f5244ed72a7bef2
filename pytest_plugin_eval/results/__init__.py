"""The results of a session as one typed document (model), the rules that score it, the results folder on disk,
`--lf`'s previous results, hints, the history of a suite, the documents of a comparison, a matrix and trigger
evals; a person's labels of judged verdicts (labels.json) and the judges measured against them
(calibration). Computations over stored documents are analysis/."""
