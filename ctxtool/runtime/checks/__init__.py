"""The checks that lower or veto a candidate: what the similarity of wordings cannot see (operator
words, values, the shape of the answer, the conditions)."""
