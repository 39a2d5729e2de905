"""Gates: is a run admissible, and may two runs be compared?"""
