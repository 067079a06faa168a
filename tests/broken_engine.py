"""A deliberately broken protocol engine for the tests: ``python broken_engine.py MODE``.

It answers like the reference engine, except on the case ``bg-GQQD`` as written (see
test_cli.CASE; its derived play checks are answered), where MODE decides what goes wrong: crash, hang, garbage,
wrong-seq, bad-play; ``no-start`` dies before the handshake; ``crash-for-good:FILE``
crashes on its first case and never starts again.
"""

import json
import os
import sys
import time

from conformance.engines.adapters.reference import ReferenceEngine

mode = sys.argv[1]
engine = ReferenceEngine()
if mode == "no-start":
    sys.exit(3)
if mode.startswith("crash-for-good:"):
    # answers once, then dies, and never starts again: the run is cut short
    marker = mode.split(":", 1)[1]
    if os.path.exists(marker):
        sys.exit(5)
    mode = "crash-for-good"
for line in sys.stdin:
    msg = json.loads(line)
    if msg["cmd"] == "start":
        info = engine.describe()
        reply = {"protocol": 1, "engine": {"name": f"broken-{mode}", "version": "0"},
                 "capabilities": info["capabilities"], "rule_options": {}}
    elif msg["cmd"] == "stop":
        break
    elif mode == "crash-for-good" and msg["cmd"] == "run":
        open(marker, "w").close()
        sys.exit(7)
    elif msg.get("case") == "bg-GQQD" and msg.get("kind") == "legal_plays":  # as written, not its derived checks
        if mode == "crash":
            sys.exit(7)
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            print("this is not json", flush=True)
            continue
        if mode == "wrong-seq":
            reply = {"seq": msg["seq"] + 100, "result": {"plays": []}}
        elif mode == "bad-play":
            reply = {"seq": msg["seq"], "result": {"plays": [[[20, 14]]]}}
    else:
        request = {k: v for k, v in msg.items() if k not in ("cmd", "seq")}
        reply = {"seq": msg["seq"], **engine.run(request)}
    print(json.dumps(reply), flush=True)
