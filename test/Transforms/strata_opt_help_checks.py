#!/usr/bin/env python3
"""FileCheck lines for `strata-opt --help`: every pass Passes.td declares, every pipeline registered.

The passes come from llvm-tblgen's JSON dump of Passes.td (every record deriving from
PassBase), the pipelines from the PassPipelineRegistration calls of Pipelines.cpp, so a pass or
pipeline that is declared and not registered fails strata-opt-help.mlir.
"""
import argparse
import json
import re
import subprocess
import sys


def pass_arguments(tblgen, includes, td):
    cmd = [tblgen, "--dump-json", td] + [f"-I{d}" for d in includes]
    records = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return sorted(records[name]["argument"] for name in records["!instanceof"]["PassBase"])


def pipeline_names(source):
    text = open(source, encoding="utf-8").read()
    return sorted(re.findall(r'PassPipelineRegistration<[^>]*>\(\s*"([^"]+)"', text))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tblgen", required=True, help="llvm-tblgen")
    parser.add_argument("-I", dest="includes", action="append", default=[])
    parser.add_argument("passes_td")
    parser.add_argument("pipelines_cpp")
    args = parser.parse_args()
    passes = pass_arguments(args.tblgen, args.includes, args.passes_td)
    pipelines = pipeline_names(args.pipelines_cpp)
    if not passes or not pipelines:
        sys.exit(f"found {len(passes)} passes and {len(pipelines)} pipelines: expected some of each")
    # `{{ }}` after the name: --strata-optimize must not be satisfied by --strata-optimize-fused.
    for name in passes + pipelines:
        print(f"CHECK-DAG: --{name}{{{{ }}}}")


if __name__ == "__main__":
    main()
