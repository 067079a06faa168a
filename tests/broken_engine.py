"""A deliberately broken protocol engine for the tests: ``python broken_engine.py MODE``.

It answers like the reference engine, except on the case ``bg-GQQD`` as written (see
test_cli.CASE; its derived play checks are answered), where MODE decides what goes wrong: crash, hang, garbage,
wrong-seq, bad-play; ``no-start`` dies before the handshake; ``crash-for-good:FILE``
crashes on its first case and never starts again. ``python broken_engine.py MODE batch``
declares ``"batch": true`` and answers run_batch messages request by request, with the same
faults.
"""

import json
import os
import sys
import time

from conformance.engines.adapters.reference import ReferenceEngine

mode = sys.argv[1]
batch = sys.argv[2:] == ["batch"]
engine = ReferenceEngine()
if mode == "no-start":
    sys.exit(3)
if mode.startswith("crash-for-good:"):
    # answers once, then dies, and never starts again: the run is cut short
    marker = mode.split(":", 1)[1]
    if os.path.exists(marker):
        sys.exit(5)
    mode = "crash-for-good"


def answer(msg: dict) -> dict | None:
    """The reply to one run message (None: nothing is written), or the fault MODE asks for."""
    if mode == "crash-for-good":
        open(marker, "w").close()
        sys.exit(7)
    if msg.get("case") == "bg-GQQD" and msg.get("kind") == "legal_plays":  # as written, not its derived checks
        if mode == "crash":
            sys.exit(7)
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            print("this is not json", flush=True)
            return None
        if mode == "wrong-seq":
            return {"seq": msg["seq"] + 100, "result": {"plays": []}}
        if mode == "bad-play":
            return {"seq": msg["seq"], "result": {"plays": [[[20, 14]]]}}
    request = {k: v for k, v in msg.items() if k not in ("cmd", "seq")}
    return {"seq": msg["seq"], **engine.run(request)}


for line in sys.stdin:
    msg = json.loads(line)
    if msg["cmd"] == "start":
        info = engine.describe()
        reply = {"protocol": 1, "engine": {"name": f"broken-{mode}", "version": "0"},
                 "capabilities": info["capabilities"], "rule_options": {}}
        if batch:
            reply["batch"] = True
        print(json.dumps(reply), flush=True)
    elif msg["cmd"] == "stop":
        break
    else:
        for one in msg["requests"] if msg["cmd"] == "run_batch" else [msg]:
            reply = answer(one)
            if reply is not None:
                print(json.dumps(reply), flush=True)
            elif msg["cmd"] == "run_batch":
                break  # a batch is answered in order: after a line that is not a reply, nothing more
