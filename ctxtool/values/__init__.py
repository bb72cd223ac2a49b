"""Value searches: per-engine recipes, drafting (which columns, what concept), and ``test-values``.

- :mod:`ctxtool.values.recipes`: the SQL (and DDL) of exact / trigram / semantic searches per engine;
- :mod:`ctxtool.values.draft`: choosing columns from a snapshot's profile and naming concept types;
- :mod:`ctxtool.values.workflow`: ``draft values`` end to end (:func:`draft_values`);
- :mod:`ctxtool.values.ddl`: applying that DDL through a separate, explicit write connection;
- :mod:`ctxtool.values.probes` and :mod:`ctxtool.values.testing`: probing searches on a live database;
- :mod:`ctxtool.values.sqlembed`: the deterministic in-database embedder of the semantic recipe.
"""

from __future__ import annotations

from ctxtool.values.recipes import MATCHES, Recipe, Server, Target, build, supported_matches

__all__ = ["MATCHES", "Recipe", "Server", "Target", "build", "supported_matches"]
