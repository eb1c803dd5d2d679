"""Ready models, recipes and the command line (issue 6); `python -m zoo.quickstart` for now."""
