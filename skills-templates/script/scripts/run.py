#!/usr/bin/env python3
"""Reads JSON arguments from stdin and prints one JSON result on stdout."""
import json
import os
import sys


def main() -> int:
    try:
        args = json.load(sys.stdin)
    except json.JSONDecodeError as error:
        print(json.dumps({"success": False, "error": f"arguments are not JSON: {error}"}))
        return 1
    path = args.get("path", ".")
    if not os.path.isdir(path):
        print(json.dumps({"success": False, "error": f"{path} is not a folder"}))
        return 1
    entries = sorted(os.listdir(path))
    print(json.dumps({"success": True, "output": {"path": path, "entries": len(entries)}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
