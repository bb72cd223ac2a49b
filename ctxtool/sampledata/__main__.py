"""``python -m ctxtool.sampledata --dsn DSN [--scale S]``: load the sample databases."""

from __future__ import annotations

import argparse
import sys

from ctxtool.errors import CtxtoolError


def main(argv: list[str] | None = None) -> int:
    from ctxtool import sampledata
    from ctxtool.connectors.dsn import redact

    parser = argparse.ArgumentParser(
        prog="python -m ctxtool.sampledata",
        description="Create and fill the ctxtool sample databases (financial, airports) in DSN.",
    )
    parser.add_argument(
        "--dsn",
        help="postgresql://..., mysql://user@host:3306/DB or spanner://projects/P/instances/I/databases/D",
    )
    parser.add_argument("--scale", type=float, default=1.0, help="1.0 is about 100,000 rows (default)")
    parser.add_argument(
        "--datasets", default="financial,airports", help="comma-separated: financial, airports (default both)"
    )
    parser.add_argument("--replace", action="store_true", help="drop existing sample tables first")
    parser.add_argument(
        "--write-ddl", metavar="DIR", help="write DIR/<engine>/<dataset>.sql instead of loading"
    )
    args = parser.parse_args(argv)
    try:
        if args.write_ddl:
            for path in sampledata.write_ddl_files(args.write_ddl):
                print(path, file=sys.stderr)
            return 0
        if not args.dsn:
            parser.error("--dsn is required (or --write-ddl DIR)")
        datasets = tuple(d.strip() for d in args.datasets.split(",") if d.strip())

        def progress(table: str, rows: int) -> None:
            print(f"  {table:<10} {rows:>7,} rows", file=sys.stderr)

        print(f"loading {', '.join(datasets)} at scale {args.scale} into {redact(args.dsn)}", file=sys.stderr)
        result = sampledata.load(args.dsn, datasets, args.scale, replace=args.replace, progress=progress)
        print(f"{result.total_rows:,} rows in {result.seconds:.2f} s", file=sys.stderr)
        return 0
    except CtxtoolError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
