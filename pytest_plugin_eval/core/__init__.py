"""What every stage shares: the problem type and validators of the loaders, the one YAML reader, path
questions, and model prices. Imports nothing from the rest of the package."""
