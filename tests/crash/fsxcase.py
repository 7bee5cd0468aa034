#!/usr/bin/env python3
"""fsxcase.py: turn fsx's operation log (fsx -d output, as fstests keeps it
in a test's .full file) into a case of the crash suite's language, to run
with tests/crash/repro.sh.

  tests/crash/fsxcase.py LOG NAME [--fsx N...] [--upto K] [--falloc keep|nokeep]
                         [--bs BYTES] [--method logwrites]

Each fsx named (its lines are prefixed "N: " when several ran at once, as
in generic/455) becomes a thread working on tN/f; --upto K stops each after
its K-th fsync.  What the language has no step for is approximated and
said in the case's title: an mmap write becomes a write, copy_file_range a
write of the same length at the destination (other bytes, the same
blocks), and fsx's preallocation, whose KEEP_SIZE the log does not show,
takes --falloc.  Reads are dropped.  Append the output to
tests/crash/lib/opcases (locally) and run
  CRASH_TIMEOUT=900 tests/crash/repro.sh opcase NAME logwrites
"""
import argparse
import re
import sys


def ops_of(log, fid, upto, falloc, several):
    """fsx FID's operations as crash steps, up to its UPTO-th fsync."""
    prefix = f'{fid}: ' if several else ''
    path = f't{fid}/f'
    steps = []
    fsyncs = 0
    seed = 100 * (fid + 1)
    with open(log) as f:
        for line in f:
            if not line.startswith(prefix):
                continue
            m = re.match(r'(\d+) (\w+)\s+(.*)', line[len(prefix):])
            if not m:
                continue
            op, rest = m.group(2), m.group(3)
            n = [int(x, 16) for x in re.findall(r'0x[0-9a-f]+', rest)]
            seed += 1
            if op in ('write', 'mapwrite'):
                steps.append(f'write {path} {n[0]} {n[2]} {seed}')
            elif op == 'copy':
                steps.append(f'write {path} {n[3]} {n[2]} {seed}')
            elif op == 'trunc':
                steps.append(f'trunc {path} {n[1]}')
            elif op in ('collapse', 'insert', 'punch', 'zero'):
                steps.append(f'falloc {path} {op} {n[0]} {n[2]}')
            elif op == 'falloc':
                steps.append(f'falloc {path} {falloc} {n[0]} {n[2]}')
            elif op == 'fsync':
                steps.append(f'fsync {path}')
                fsyncs += 1
                if upto and fsyncs >= upto:
                    break
    return steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('log')
    ap.add_argument('name')
    ap.add_argument('--fsx', type=int, nargs='+', default=[0])
    ap.add_argument('--upto', type=int, default=0)
    ap.add_argument('--falloc', choices=('keep', 'nokeep'), default='keep')
    ap.add_argument('--bs', type=int, default=0)
    ap.add_argument('--method', default='logwrites')
    a = ap.parse_args()
    try:
        several = any(re.match(r'\d+: ', line) for line in open(a.log))
    except OSError as e:
        print(f'fsxcase.py: cannot read {a.log}: {e.strerror}', file=sys.stderr)
        sys.exit(2)
    threads = [(fid, ops_of(a.log, fid, a.upto, a.falloc, several)) for fid in a.fsx]
    for fid, steps in threads:
        if not steps:
            print(f'fsxcase.py: no operations of fsx {fid} in {a.log}'
                  f'{" (lines start with N: only when several ran)" if not several else ""}',
                  file=sys.stderr)
            sys.exit(2)
    print(f'= {a.name}: fsx {" ".join(map(str, a.fsx))} from {a.log.split("/")[-1]}'
          f' (mmap writes and copies as writes, preallocation {a.falloc})')
    if a.bs:
        print(f'bs {a.bs}')
    print(f'methods {a.method}')
    for fid, _ in threads:
        print(f'mkdir t{fid}')
        print(f'creat t{fid}/f')
    print('sync')
    for i, (fid, steps) in enumerate(threads):
        if len(threads) > 1:
            print(f'thread {i + 1}')
        print('\n'.join(steps))
    if len(threads) > 1:
        print('join')


if __name__ == '__main__':
    main()
