"""The set's templates and facets, compiled once when a runtime is made: their wordings and slots
(:mod:`.compiled`), what their SQL reads and computes, the SQL surgery that binds and injects
(:mod:`.sqlparts`), when two queries are the same (:mod:`.equivalence`), and the indexes that find
candidates by words (:mod:`.index`) and by meaning (:mod:`.semantic`)."""
