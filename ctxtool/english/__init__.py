"""General English for reading questions and wordings: the lexicon (every word list and phrase
pattern ctxtool reads English with), tokens with their offsets and lemmas, content tokens (the
words matching compares, with the canonical tokens of counting, comparing and ordering), and the
thesaurus derived from WordNet. Nothing here knows a database; drafting, parameterization, the
runtime and conversations all read English through this package.
"""
