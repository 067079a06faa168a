"""A protocol engine of any version for the history tests: ``python versioned_engine.py VERSION
ID[,ID...]``.

It says it is ``versioned`` at VERSION and answers like the reference engine, except on the
legal_plays requests of the cases ID (their derived play checks are answered right; run it
without --scenarios), where it leaves out the last legal play (a case with two or more legal
plays then fails with one play missing).
Two versions wrong on different cases make one case fixed and another regressed between them.
"""

import json
import sys

from conformance.engines.adapters.reference import ReferenceEngine

version, wrong = sys.argv[1], set(sys.argv[2].split(","))
engine = ReferenceEngine()
for line in sys.stdin:
    msg = json.loads(line)
    if msg["cmd"] == "start":
        info = engine.describe()
        reply = {"protocol": 1, "engine": {"name": "versioned", "version": version},
                 "capabilities": info["capabilities"], "rule_options": {}}
    elif msg["cmd"] == "stop":
        break
    else:
        request = {k: v for k, v in msg.items() if k not in ("cmd", "seq")}
        reply = {"seq": msg["seq"], **engine.run(request)}
        if msg.get("case") in wrong and msg.get("kind") == "legal_plays":
            reply["result"]["plays"] = reply["result"]["plays"][:-1]
    print(json.dumps(reply), flush=True)
