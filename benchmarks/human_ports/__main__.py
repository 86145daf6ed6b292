"""python -m benchmarks.human_ports [--project NAME ...] [--clones DIR] [--json OUT] [--work DIR]"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.human_ports import harness


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.human_ports", description=__doc__)
    parser.add_argument(
        "--project", action="append", default=[], help="only this project (repeatable)"
    )
    parser.add_argument(
        "--clones", type=Path, default=Path("/work/.mirror"), help="folder of upstream clones"
    )
    parser.add_argument(
        "--driving-sdk", type=Path, help="Ascend/DrivingSDK clone (default: in --clones)"
    )
    parser.add_argument(
        "--work", type=Path, default=Path("/tmp/human_ports"), help="scratch folder"
    )
    parser.add_argument(
        "--tool", type=Path, default=harness.REPO_ROOT, help="npu-migrator checkout to measure"
    )
    parser.add_argument("--json", type=Path, help="write the scores as JSON here")
    parser.add_argument(
        "--prepare-only",
        action="store_true",
        help="only export the trees and apply the hand patches (to read them); run no tool",
    )
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    args = parser.parse_args(argv)
    try:
        projects = harness.load_projects()
        unknown = set(args.project) - {p.name for p in projects}
        if unknown:
            parser.error(f"unknown project(s): {', '.join(sorted(unknown))}")
        picked = [p for p in projects if not args.project or p.name in args.project]
        sdk = args.driving_sdk or harness.find_clone(args.clones, "Ascend/DrivingSDK")
        tool = args.tool.resolve()
        if args.prepare_only:
            for project in picked:
                missing, notes = harness.prepare(project, args.clones, sdk, args.work.resolve())
                print(f"{project.name}: {notes}; {len(missing)} blobs missing from the clone")
            return 0
        scores = []
        for project in picked:
            print(f"{project.name} ...", file=sys.stderr, flush=True)
            scores.append(harness.run_project(project, args.clones, sdk, args.work.resolve(), tool))
    except harness.DataError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    text = harness.table(scores)
    print(text)
    for score in scores:
        for judged in score.items:
            if judged.category == "unjudged":
                item = judged.item
                print(
                    f"unjudged: {score.name}: {item.file}:{item.line}: {item.code} {item.message}"
                )
        for path in score.broken:
            print(f"broken: {score.name}: {path}")
    revision = harness.tool_revision(tool)
    if args.json:
        args.json.write_text(json.dumps(harness.as_json(scores, revision), indent=2) + "\n")
    if args.markdown:
        command = "python -m benchmarks.human_ports " + " ".join(argv or sys.argv[1:])
        args.markdown.write_text(harness.markdown(scores, revision, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
