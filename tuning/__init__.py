"""KerasTuner search spaces for the zoo (issue 7)."""
