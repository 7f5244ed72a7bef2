"""`plugin-eval tune`: the loop (loop.py) that measures a skill's trigger set (measure.py), asks for better
descriptions (propose.py), chooses by the rules (rules.py), writes the document (result.py) and its report
(report.py), prices the loop (cost.py) and applies the winner (apply.py)."""
