#!/usr/bin/env python3
"""A stand-in for a GPU host's `bankviz-cli serve`, for the tests of the page measuring through
`bankviz-cli serve --http --gpu-command` (CI has no GPU). It speaks the protocol
(app/shared/gpu_protocol.h) as a host with an H200 does: the real server's greeting (its protocol
and bankviz versions) with an H200 in it, then one reply per request. A `run` is answered with the
run recorded on an H200 for exactly that scenario (`bankviz-cli run --recorded`, the shipped set),
given as a live run's output: so the figure the page shows comes from this host, and follows an
edit (row-write-column-read's column read: 32 cycles per instruction; with pad 1, 1). A scenario
nobody recorded is answered as `run` answers one it cannot measure. Nothing else is served.

usage: fake_gpu.py BANKVIZ_CLI   (BANKVIZ_DATA_DIR: where assets/recorded is)
"""
import json
import os
import subprocess
import sys
import tempfile

cli = sys.argv[1]
first = subprocess.run([cli, 'serve'], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       check=False).stdout.splitlines()
greeting = json.loads(first[0])
greeting['device'] = {'present': True, 'name': 'NVIDIA H200', 'sm': 'sm_90', 'driver_cuda': 13000}
print(json.dumps(greeting), flush=True)

# The options of a live run that a recorded one has no use for, with their value counts.
LIVE_ONLY = {'--timing-runs': 1, '--launches': 1, '--timeout-ms': 1, '--reps': 1,
             '--no-counters': 0}

for line in sys.stdin:
    try:
        q = json.loads(line)
    except ValueError as e:
        print(json.dumps({'id': 0, 'ok': False, 'error': f'not JSON: {e}'}), flush=True)
        continue
    reply = {'id': q.get('id', 0)}
    if q.get('request') != 'run':
        reply.update(ok=False, error='this stand-in GPU host serves run only')
        print(json.dumps(reply), flush=True)
        continue
    args, given = [], iter(q.get('args', []))
    for a in given:
        if a in LIVE_ONLY:
            for _ in range(LIVE_ONLY[a]):
                next(given, None)
            continue
        args.append(a)
    with tempfile.TemporaryDirectory(prefix='bankviz-fake-gpu-') as d:
        for name, text in q.get('files', {}).items():
            with open(os.path.join(d, os.path.basename(name)), 'w', encoding='utf-8') as f:
                f.write(text)
        r = subprocess.run([cli, 'run', *args, '--recorded'], cwd=d, capture_output=True,
                           text=True, check=False)
    out = r.stdout
    try:
        j = json.loads(out)
        j.pop('recorded', None)  # given as this host's run
        out = json.dumps(j)
    except ValueError:
        pass
    reply.update(ok=True, exit=r.returncode, stdout=out, stderr=r.stderr)
    print(json.dumps(reply), flush=True)
