"""Spanner GoogleSQL for sqlglot: its ``bigquery`` dialect, extended where Spanner differs.

BigQuery already covers most of what Spanner queries use (``@param``, ``?``, ``SAFE_CAST``,
``JSON '{}'`` literals, ``SEARCH_NGRAMS``/``SCORE_NGRAMS``/``TOKENIZE_NGRAMS`` as functions).
Spanner adds:

- hints in ``@{KEY=value, ...}`` form after a table, a join keyword or at the start of a statement
  (``FROM airports@{FORCE_INDEX=airports_by_name}``). They never change a query's result, so the
  parser drops them and the tree (and its canonical SQL) is that of the query without hints;
- the ``TOKENLIST`` type of full-text search columns (kept as a user-defined type name).
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.bigquery import BigQuery
from sqlglot.tokens import Token, TokenType


def _drop_hints(tokens: list[Token]) -> list[Token]:
    """Remove every ``@{...}`` hint (``@`` followed by ``{``, up to the matching ``}``)."""
    if not any(tok.token_type == TokenType.L_BRACE for tok in tokens):
        return tokens
    out: list[Token] = []
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if (
            tok.token_type == TokenType.PARAMETER
            and i + 1 < n
            and tokens[i + 1].token_type == TokenType.L_BRACE
        ):
            depth = 0
            j = i + 1
            while j < n:
                if tokens[j].token_type == TokenType.L_BRACE:
                    depth += 1
                elif tokens[j].token_type == TokenType.R_BRACE:
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j >= n:  # unbalanced: keep the tokens so that the parser reports the error
                out.extend(tokens[i:])
                break
            i = j + 1
            continue
        out.append(tok)
        i += 1
    return out


class Spanner(BigQuery):
    """GoogleSQL as Spanner speaks it."""

    class Parser(BigQuery.Parser):
        def parse(self, raw_tokens: list[Token], sql: str) -> list[exp.Expr | None]:
            return super().parse(_drop_hints(raw_tokens), sql)

        def parse_into(self, expression_types, raw_tokens: list[Token], sql: str | None = None):  # type: ignore[no-untyped-def]
            return super().parse_into(expression_types, _drop_hints(raw_tokens), sql)

        def _parse_types(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            if self._match_text_seq("TOKENLIST"):
                return exp.DataType.build("TOKENLIST", udt=True)
            return super()._parse_types(*args, **kwargs)
