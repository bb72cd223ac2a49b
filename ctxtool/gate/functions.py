"""Which functions a query may call, per engine: the allow-lists of the read-only gate, as data.

A function is allowed when the server computes it from its arguments and the data it reads, with no
other effect: no file, no lock, no session setting, no sequence, no other connection, no query run
from a string. Each list is built from the engine's own catalog of built-ins:

- ``postgres``: the ``pg_catalog`` functions, aggregates and window functions that PostgreSQL 15
  marks IMMUTABLE or STABLE (``pg_proc.provolatile``), without type I/O and operator support
  functions, ``pg_*`` administration functions, the ``*_to_xml`` functions that read a table or run a
  query given as text, ``current_setting`` and ``txid_*``; plus the SQL-standard forms the
  grammar treats as keywords (``coalesce``, ``extract``...) and a few VOLATILE functions without side
  effects (``random``, ``clock_timestamp``, ``gen_random_uuid``);
- ``mysql``: the documented built-in functions, aggregates and window functions of MySQL 8 and
  MariaDB that have no side effect (not ``LOAD_FILE``, ``SLEEP``, ``BENCHMARK``, ``GET_LOCK``,
  ``LAST_INSERT_ID(expr)``, ``MASTER_POS_WAIT``...);
- the IMMUTABLE/STABLE functions of the extensions ctxtool's value searches use (``pg_trgm``,
  ``fuzzystrmatch``, ``unaccent``, ``pgvector``), AlloyDB's ``google_ml.embedding`` and ctxtool's
  own ``ctxtool_embed_<dim>`` (created by its ``--apply-ddl``);
- ``spanner``: the GoogleSQL functions Spanner documents (all are free of side effects) -- the
  PostgreSQL list is used for Spanner databases of the PostgreSQL dialect.

``pg_sleep(n)`` and MySQL's ``SLEEP(n)`` are allowed only with a constant ``n`` of at most
:data:`MAX_WAIT_SECONDS` (the default statement timeout, which cuts them anyway).

Refused besides, whatever the lists say: the names in :data:`DANGEROUS` (with the reason shown to
the user), schema-qualified calls outside ``pg_catalog`` (user functions), and quoted names whose
spelling is not the built-in's. Functions sqlglot parses to a typed node are standard scalar,
aggregate or window functions; the typed nodes in :data:`REFUSED_TYPED` are refused.

A set may declare its own functions stable with ``CTXTOOL_GATE_FUNCTIONS`` (comma-separated names,
optionally schema-qualified) -- only functions that read and compute, never write: the gate trusts
the declaration.
"""

from __future__ import annotations

import re

_POSTGRES = """
    abbrev abs acos acosd acosh age any_value area array_agg array_append array_cat array_dims
    array_fill array_length array_lower array_ndims array_position array_positions array_prepend
    array_remove array_replace array_sample array_shuffle array_to_json array_to_string
    array_to_tsvector array_upper ascii asin asind asinh atan atan2 atan2d atand atanh avg bit_and
    bit_count bit_length bit_or bit_xor bool_and bool_or broadcast btrim cardinality cash_words cast
    cbrt ceil ceiling center char_length character_length chr clock_timestamp coalesce
    col_description concat concat_ws convert convert_from convert_to corr cos cosd cosh cot cotd
    count covar_pop covar_samp cume_dist current_database current_date current_schema
    current_schemas current_time current_timestamp current_user date_bin date_part date_trunc
    daterange decode degrees dense_rank diagonal diameter div encode enum_first enum_last enum_range
    every exp extract factorial family first_value floor format format_type gcd gen_random_uuid
    generate_series generate_subscripts get_bit get_byte get_current_ts_config getdatabaseencoding
    getpgusername greatest has_any_column_privilege has_column_privilege has_database_privilege
    has_foreign_data_wrapper_privilege has_function_privilege has_language_privilege
    has_parameter_privilege has_schema_privilege has_sequence_privilege has_server_privilege
    has_table_privilege has_tablespace_privilege has_type_privilege height host hostmask
    inet_client_addr inet_client_port inet_server_addr inet_server_port initcap int4range int8range
    is_normalized isclosed isempty isfinite ishorizontal isopen isparallel isperp isvertical
    json_agg json_array json_array_elements json_array_elements_text json_array_length json_arrayagg
    json_build_array json_build_object json_each json_each_text json_exists json_object
    json_object_agg json_object_keys json_objectagg json_populate_record json_populate_recordset
    json_query json_scalar json_serialize json_strip_nulls json_to_record json_to_recordset
    json_to_tsvector json_typeof json_value jsonb_agg jsonb_array_elements jsonb_array_elements_text
    jsonb_array_length jsonb_build_array jsonb_build_object jsonb_contains jsonb_each
    jsonb_each_text jsonb_exists jsonb_insert jsonb_object jsonb_object_agg jsonb_object_keys
    jsonb_path_exists jsonb_path_exists_tz jsonb_path_match jsonb_path_match_tz jsonb_path_query
    jsonb_path_query_array jsonb_path_query_array_tz jsonb_path_query_first
    jsonb_path_query_first_tz jsonb_path_query_tz jsonb_populate_record jsonb_populate_recordset
    jsonb_pretty jsonb_set jsonb_set_lax jsonb_strip_nulls jsonb_to_record jsonb_to_recordset
    jsonb_to_tsvector jsonb_typeof justify_days justify_hours justify_interval lag last_value lcm
    lead least left length like like_escape line ln localtime localtimestamp log log10 lower
    lower_inc lower_inf lpad ltrim make_date make_interval make_time make_timestamp make_timestamptz
    masklen max md5 min min_scale mod mode multirange mxid_age netmask network nlevel normalize
    notlike now npoints nth_value ntile nullif num_nonnulls num_nulls numnode numrange
    obj_description octet_length oidvectortypes overlaps overlay parse_ident pclose percent_rank
    percentile_cont percentile_disc phraseto_tsquery pi plainto_tsquery popen position pow power
    querytree quote_ident quote_literal quote_nullable radians radius random range_agg
    range_intersect_agg range_merge rank regexp_count regexp_instr regexp_like regexp_match
    regexp_matches regexp_replace regexp_split_to_array regexp_split_to_table regexp_substr
    regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy
    repeat replace reverse right round row_number row_security_active row_to_json rpad rtrim scale
    session_user set_bit set_byte set_masklen setweight sha224 sha256 sha384 sha512
    shobj_description sign similar_escape similar_to_escape sin sind sinh slope split_part sqrt
    statement_timestamp stddev stddev_pop stddev_samp string_agg string_to_array string_to_table
    strip strpos substr substring sum system_user tan tand tanh textlen timeofday timezone to_ascii
    to_char to_date to_hex to_json to_jsonb to_number to_regclass to_regcollation to_regnamespace
    to_regoper to_regoperator to_regproc to_regprocedure to_regrole to_regtype to_timestamp
    to_tsquery to_tsvector transaction_timestamp translate trim trim_array trim_scale trunc ts_debug
    ts_delete ts_filter ts_headline ts_lexize ts_parse ts_rank ts_rank_cd ts_token_type tsrange
    tstzrange tsvector_to_array unistr unnest upper upper_inc upper_inf var_pop var_samp variance
    version websearch_to_tsquery width width_bucket xml_is_well_formed xml_is_well_formed_content
    xml_is_well_formed_document xmlagg xmlattributes xmlcomment xmlconcat xmlelement xmlexists
    xmlforest xmlparse xmlpi xmlroot xmlserialize xmltable xmlvalidate xpath xpath_exists
"""

_MYSQL = """
    abs acos adddate addtime aes_decrypt any_value ascii asin atan atan2 avg bin bin_to_uuid bit_and
    bit_count bit_length bit_or bit_xor cast ceil ceiling char char_length character_length charset
    chr coalesce coercibility collation concat concat_ws conv convert convert_tz cos cot count crc32
    cume_dist curdate current_date current_time current_timestamp curtime date date_add date_format
    date_sub datediff day dayname dayofmonth dayofweek dayofyear decode_oracle degrees dense_rank
    div elt exp export_set extract field find_in_set first_value floor format from_base64 from_days
    from_unixtime get_format greatest group_concat hex hour if ifnull in inet6_aton inet6_ntoa
    inet_aton inet_ntoa insert instr interval is_ipv4 is_ipv6 is_uuid isnull json_array
    json_arrayagg json_compact json_contains json_contains_path json_depth json_detailed json_exists
    json_extract json_keys json_length json_loose json_merge json_merge_patch json_merge_preserve
    json_object json_objectagg json_overlaps json_pretty json_query json_quote json_search
    json_table json_type json_unquote json_valid json_value lag last_day last_value lcase lead least
    left length ln localtime localtimestamp locate log log10 log2 lower lpad ltrim make_set makedate
    maketime max md5 median microsecond mid min minute mod month monthname natural_sort_key now
    nth_value ntile nullif nvl nvl2 oct octet_length ord percent_rank percentile_cont
    percentile_disc period_add period_diff pi position pow power quarter quote radians rand rank
    regexp_instr regexp_like regexp_replace regexp_substr repeat replace reverse right round
    row_number rpad rtrim sec_to_time second sformat sha sha1 sha2 sign sin soundex space sqrt std
    stddev stddev_pop stddev_samp str_to_date strcmp subdate substr substring substring_index
    subtime sum sysdate tan time time_format time_to_sec timediff timestamp timestampadd
    timestampdiff to_base64 to_days to_seconds trim truncate ucase unhex unix_timestamp upper
    utc_date utc_time utc_timestamp uuid uuid_to_bin var_pop var_samp variance week weekday
    weekofyear weight_string year yearweek
"""

_SPANNER = """
    abs acos acosh any_value approx_cosine_distance approx_count_distinct approx_dot_product
    approx_euclidean_distance array array_agg array_concat array_concat_agg array_filter array_first
    array_includes array_includes_all array_includes_any array_is_distinct array_last array_length
    array_max array_min array_reverse array_slice array_to_string array_transform ascii asin asinh
    atan atan2 atanh avg bit_and bit_count bit_or bit_xor bool_from_json byte_length case cast ceil
    ceiling char_length character_length chr coalesce code_points_to_bytes code_points_to_string
    concat cos cosh cosine_distance count countif cume_dist current_date current_timestamp date
    date_add date_diff date_from_unix_date date_sub date_trunc dense_rank div dot_product ends_with
    error euclidean_distance exp extract farm_fingerprint fingerprint first_value float64_from_json
    format format_date format_timestamp from_base32 from_base64 from_hex generate_array
    generate_date_array generate_uuid greatest ieee_divide if ifnull int64 int64_from_json is_inf
    is_nan json_array json_extract json_extract_array json_extract_scalar json_extract_string_array
    json_keys json_object json_query json_query_array json_type json_value json_value_array lag
    last_day last_value lax_bool lax_float64 lax_int64 lax_string lead least length ln log log10
    logical_and logical_or lower lpad ltrim max md5 min mod net_host net_ip_from_string
    net_ip_net_mask net_ip_to_string net_ip_trunc net_ipv4_from_int64 net_ipv4_to_int64
    net_public_suffix net_reg_domain net_safe_ip_from_string normalize normalize_and_casefold
    nth_value ntile nullif parse_date parse_json parse_numeric parse_timestamp
    pending_commit_timestamp percent_rank percentile_cont percentile_disc pow power rank
    regexp_contains regexp_extract regexp_extract_all regexp_instr regexp_replace repeat replace
    reverse round row_number rpad rtrim safe_add safe_cast safe_convert_bytes_to_string safe_divide
    safe_multiply safe_negate safe_subtract score score_ngrams search search_ngrams search_substring
    sha1 sha256 sha512 sign sin sinh snippet soundex split sqrt starts_with stddev stddev_samp
    string string_agg strpos substr substring sum tan tanh timestamp timestamp_add timestamp_diff
    timestamp_micros timestamp_millis timestamp_seconds timestamp_sub timestamp_trunc to_base32
    to_base64 to_code_points to_hex to_json to_json_string tokenize_bool tokenize_fulltext
    tokenize_json tokenize_ngrams tokenize_number tokenize_substring tokenlist_concat trim trunc
    unix_date unix_micros unix_millis unix_seconds upper var_samp variance
"""

# functions of the extensions ctxtool's value searches use (pg_trgm, fuzzystrmatch, unaccent,
# pgvector), all IMMUTABLE or STABLE, and server information functions without side effects
# (current_setting, pg_backend_pid, pg_typeof...)
_POSTGRES_EXTENSIONS = """
    similarity word_similarity strict_word_similarity show_trgm levenshtein levenshtein_less_equal
    soundex difference metaphone dmetaphone dmetaphone_alt unaccent cosine_distance l2_distance
    l1_distance inner_product vector_dims vector_norm l2_normalize binary_quantize subvector
    current_setting pg_backend_pid pg_typeof pg_size_pretty pg_column_size pg_postmaster_start_time
    pg_client_encoding
"""
_MYSQL_INFO = """
    connection_id database schema version current_user session_user system_user user current_role
    match
"""

ALLOWED: dict[str, frozenset[str]] = {
    "postgres": frozenset(_POSTGRES.split() + _POSTGRES_EXTENSIONS.split()),
    "mysql": frozenset(_MYSQL.split() + _MYSQL_INFO.split()),
    "spanner": frozenset(_SPANNER.split()),
}

# (pattern on the lower-cased name, why it is refused) -- checked before the allow-lists so the
# finding says what the function would do
DANGEROUS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), why)
    for pattern, why in (
        (
            r"^lo_|^loread$|^lowrite$",
            "reads or writes large objects (they persist even in a read-only transaction)",
        ),
        (r"^dblink", "opens another connection, which can run any statement"),
        (r"^pg_(read|ls|stat_file|file)", "reads files or directories on the database host"),
        (r"^load_file$", "reads a file on the database host"),
        (r"^pg_sleep_(for|until)$|^benchmark$", "makes the server wait"),
        (
            r"advisory|^get_lock$|^release_(all_)?locks?$|^is_(free|used)_lock$",
            "takes or releases a lock held by the session",
        ),
        (r"^set_config$|^setseed$", "changes a session setting"),
        (r"^(nextval|setval|currval|lastval|last_insert_id)$", "uses or changes a sequence"),
        (r"^txid_|^pg_current_xact|^pg_snapshot", "assigns or inspects transaction ids"),
        (
            r"^pg_(terminate|cancel)_backend$|^pg_reload_conf$|^pg_rotate|^pg_switch|^pg_promote",
            "administers the server",
        ),
        (
            r"^pg_(create|drop|replication|logical|backup|start_backup|stop_backup|import|export|notify)",
            "changes server state",
        ),
        (
            r"^(query|table|cursor|schema|database)_to_xml|^ts_stat$|^ts_rewrite$",
            "runs a query given as text or reads a whole table by name",
        ),
        (r"^(master|source)_pos_wait$|^sys_(exec|eval)$", "waits on replication or runs a program"),
    )
)

# waits allowed with a constant of at most MAX_WAIT_SECONDS (the default statement timeout, which cuts
# them anyway): a slow report can be written; an argument that is not such a constant is refused
BOUNDED_WAITS = frozenset({"pg_sleep", "sleep"})
MAX_WAIT_SECONDS = 5.0

# sqlglot typed functions that are not plain computations
REFUSED_TYPED = frozenset(
    {"NextValueFor", "ReadCSV", "ReadParquet", "ToFile", "Seq1", "Seq2", "Seq4", "Seq8"}
)

# ctxtool's own SQL functions, created by its DDL (``--apply-ddl``): the deterministic embedder
# ctxtool_embed_<dim>(text), IMMUTABLE
OWN_FUNCTIONS = re.compile(r"^ctxtool_embed_\d+$")

# schema-qualified functions that are built-ins of a managed service (AlloyDB AI's embedding())
QUALIFIED: dict[str, frozenset[str]] = {
    "postgres": frozenset({"google_ml.embedding"}),
    "mysql": frozenset(),
    "spanner": frozenset(),
}

# schemas whose functions are the built-ins (a call qualified with another schema is a user function)
BUILTIN_SCHEMAS: dict[str, frozenset[str]] = {
    "postgres": frozenset({"pg_catalog"}),
    "mysql": frozenset(),
    "spanner": frozenset({"net", "safe"}),
}


def dangerous(name: str) -> str | None:
    """Why ``name`` (lower-case) is refused outright, or None."""
    for pattern, why in DANGEROUS:
        if pattern.search(name):
            return why
    return None


def allowed(name: str, dialect: str) -> bool:
    """Whether the lower-case ``name`` (``schema.name`` when qualified) is a read-only built-in."""
    if "." in name:
        return name in QUALIFIED.get(dialect, frozenset())
    return name in allow_list(dialect) or (dialect == "postgres" and OWN_FUNCTIONS.match(name) is not None)


def allow_list(dialect: str) -> frozenset[str]:
    """The built-in functions ``dialect``'s queries may call."""
    return ALLOWED.get(dialect, ALLOWED["postgres"])
