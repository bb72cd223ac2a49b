"""The language-model stage: SQL written by a model for a question no template covers (checked
before it is accepted), the ``chat`` action, and the model's explanation and narration."""
