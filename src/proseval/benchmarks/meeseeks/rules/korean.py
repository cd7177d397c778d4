"""stub"""
RULES = []
