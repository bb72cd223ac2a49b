"""The decide stage: with the ranked candidates, answer with the best one, ask back ("did you
mean ...?") or decline; a follow-up may reuse the previous answer's template."""
