#!/usr/bin/env python3
"""report.py: the side-by-side table of fstests runs (tests/fstests/run.sh).

    tests/fstests/report.py [-o REPORT.md] DIR [DIR...]

A test the guest killed after run.sh's per-test budget is "timeout"; one
after which fstests did not go on (a task blocked in the kernel: the guest
stopped there, see its harness-stop and console.log) says so.
Each DIR is a run.sh output directory (OUT/<fs>/part-K/...); several DIRs
(shards run on other machines, copied here) are merged, test by test.  For
every test: stock ext4's verdict, ext4fc's, and the seconds each took, from
fstests' xunit result.xml; a test a guest was given but never reported is
"lost" with the guest's exit status.  Writes REPORT.md (default
DIR/report.md) and prints the totals and the regressions.

Exit status: 0 when no test failed, timed out or was lost on ext4fc unless
it also failed or timed out on stock ext4, and no ext4fc guest hit a kernel failure; 1 otherwise;
2 bad input.
"""

import argparse
import os
import sys
import xml.etree.ElementTree as ET

FS_ORDER = ["ext4", "ext4fc"]
FS_LABEL = {"ext4": "stock ext4", "ext4fc": "ext4fc"}
HARNESS_RC = {
    "0": "passed",
    "1": "tests failed",
    "2": "harness/set-up error",
    "124": "guest timed out",
    "125": "kernel failure on the console (BUG/WARNING/...)",
    "255": "guest never reported back",
    "running": "no exit status yet: running, or the run was stopped",
}
BAD = ("fail", "lost", "timeout")


def fail(msg):
    print(f"report.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read_xunit(path):
    """{test: (verdict, seconds, message)} from one result.xml."""
    res = {}
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"report.py: note: {path}: {e}", file=sys.stderr)
        return res
    for tc in root.iter("testcase"):
        name = tc.get("name")
        secs = tc.get("time") or ""
        verdict, msg = "pass", ""
        f = tc.find("failure")
        s = tc.find("skipped")
        if f is not None:
            verdict, msg = "fail", f.get("message") or ""
        elif s is not None:
            verdict, msg = "notrun", s.get("message") or ""
        res[name] = (verdict, secs, msg)
    return res


def names(path):
    """The test names in a file of one per line (none if it is missing)."""
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {t.strip() for t in f if t.strip()}


def collect(dirs):
    """results[fs][test] = dict(verdict, secs, msg, where); plus extras."""
    results = {}
    excluded = {}
    harness = []
    settings = []
    for d in dirs:
        if not os.path.isdir(d):
            fail(f"{d} is not a directory")
        sp = os.path.join(d, "settings")
        if os.path.exists(sp):
            with open(sp) as f:
                settings.append((d, f.read().strip()))
        ep = os.path.join(d, "excluded.tsv")
        if os.path.exists(ep):
            with open(ep) as f:
                for line in f:
                    t, _, why = line.rstrip("\n").partition("\t")
                    if t:
                        excluded[t] = why.strip()
        for fs in sorted(os.listdir(d)):
            fsdir = os.path.join(d, fs)
            if fs not in FS_LABEL or not os.path.isdir(fsdir):
                continue
            for part in sorted(os.listdir(fsdir)):
                pdir = os.path.join(fsdir, part)
                lp = os.path.join(pdir, "tests.list")
                if not os.path.exists(lp):
                    continue
                with open(lp) as f:
                    planned = [t.strip() for t in f if t.strip()]
                rc = "running"
                rp = os.path.join(pdir, "harness.rc")
                if os.path.exists(rp):
                    with open(rp) as f:
                        rc = f.read().strip()
                stop = ""
                sp = os.path.join(pdir, "guest", "harness-stop")
                if os.path.exists(sp):
                    with open(sp) as f:
                        stop = f.readline().strip()
                harness.append((fs, pdir, rc, stop))
                xp = os.path.join(pdir, "guest", "results", "result.xml")
                xr = read_xunit(xp) if rc != "running" or os.path.exists(xp) else {}
                killed = names(os.path.join(pdir, "guest", "timeouts"))
                stalled = names(os.path.join(pdir, "guest", "stalled"))
                for t in planned:
                    if t in killed or t in stalled:
                        v, secs = "timeout", (xr.get(t) or ("", "", ""))[1]
                        msg = ("stalled: killed, fstests did not go on; its guest stopped"
                               if t in stalled else
                               "killed after the per-test budget (run.sh --per-test)")
                    elif t in xr:
                        v, secs, msg = xr[t]
                    elif rc == "running":
                        v, secs, msg = "pending", "", "its guest is running (or the run was stopped)"
                    else:
                        why = HARNESS_RC.get(rc, f"exit {rc}")
                        v, secs, msg = "lost", "", f"no result: guest {why}"
                    results.setdefault(fs, {})[t] = dict(
                        verdict=v, secs=secs, msg=msg,
                        where=os.path.join(pdir, "guest", "results"))
    return results, excluded, harness, settings


def cell(r):
    if r is None:
        return "-"
    v = r["verdict"]
    if v == "notrun":
        return "not run"
    if v == "pending":
        return "not reached"
    return v


def short(msg, n=90):
    msg = " ".join(msg.split())
    return msg if len(msg) <= n else msg[: n - 3] + "..."


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", dest="report")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    results, excluded, harness, settings = collect(a.dirs)
    if not results and not excluded:
        fail(f"no fstests results under {', '.join(a.dirs)}")
    fss = [fs for fs in FS_ORDER if fs in results]
    tests = sorted(set().union(*[set(results[fs]) for fs in fss]) | set(excluded))

    regress = []
    for t in tests:
        ours = results.get("ext4fc", {}).get(t)
        stock = results.get("ext4", {}).get(t)
        if ours and ours["verdict"] in BAD:
            if not stock or stock["verdict"] not in BAD + ("pending",):
                regress.append(t)

    lines = ["# fstests: ext4fc beside stock ext4", ""]
    for d, s in settings:
        lines += [f"Run `{d}`:", "", "```", s, "```", ""]
    hdr = ["test"] + [FS_LABEL[fs] for fs in fss] + [f"s ({FS_LABEL[fs]})" for fs in fss] + ["note"]
    lines += ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for t in tests:
        rs = [results.get(fs, {}).get(t) for fs in fss]
        if t in excluded and all(r is None for r in rs):
            lines.append("| " + " | ".join([t] + ["excluded"] * len(fss) + [""] * len(fss)
                                          + [short(excluded[t], 120)]) + " |")
            continue
        note = ""
        for fs, r in zip(fss, rs):
            if r and r["verdict"] in BAD + ("notrun",) and r["msg"]:
                note += ("; " if note else "") + f"{FS_LABEL[fs]}: {short(r['msg'], 70)}"
        if t in regress:
            note = "**ext4fc only** " + note
        lines.append("| " + " | ".join([t] + [cell(r) for r in rs]
                                       + [(r or {}).get("secs", "") or "" for r in rs]
                                       + [note.replace("|", "/")]) + " |")

    lines += ["", "## Totals", "",
              "| | pass | fail | not run | timeout | lost | not reached | excluded | seconds |",
              "|---|---|---|---|---|---|---|---|---|"]
    totals = {}
    for fs in fss:
        c = {"pass": 0, "fail": 0, "notrun": 0, "timeout": 0, "lost": 0, "pending": 0}
        secs = 0
        for r in results[fs].values():
            c[r["verdict"]] += 1
            try:
                secs += int(r["secs"] or 0)
            except ValueError:
                pass
        totals[fs] = c
        lines.append(f"| {FS_LABEL[fs]} | {c['pass']} | {c['fail']} | {c['notrun']} | "
                     f"{c['timeout']} | {c['lost']} | {c['pending']} | {len(excluded)} | {secs} |")

    lines += ["", "## Guests", "", "| fs | part | exit | meaning |", "|---|---|---|---|"]
    bad_guest = []
    for fs, pdir, rc, stop in harness:
        meaning = HARNESS_RC.get(rc, "") + (f": {stop}" if stop else "")
        lines.append(f"| {fs} | {os.path.basename(pdir)} | {rc} | {meaning} |")
        if fs == "ext4fc" and rc not in ("0", "1", "running"):
            bad_guest.append((pdir, rc, stop))

    if regress:
        lines += ["", "## Failing on ext4fc only", ""]
        for t in regress:
            r = results["ext4fc"][t]
            lines.append(f"- {t}: {short(r['msg'], 200)} (`{r['where']}/`)")
    text = "\n".join(lines) + "\n"
    report = a.report or os.path.join(a.dirs[0], "report.md")
    with open(report, "w") as f:
        f.write(text)

    for fs in fss:
        c = totals[fs]
        print(f"fstests: {FS_LABEL[fs]:10s}: {c['pass']} passed, {c['fail']} failed, "
              f"{c['notrun']} not run, {c['timeout']} timed out, {c['lost']} lost, "
              f"{c['pending']} not reached, {len(excluded)} excluded")
    for t in regress:
        r = results["ext4fc"][t]
        print(f"fstests: FAIL on ext4fc only: {t}: {short(r['msg'], 150)}")
    for pdir, rc, stop in bad_guest:
        print(f"fstests: ext4fc guest {pdir}: exit {rc} ({HARNESS_RC.get(rc, 'unknown')}"
              f"{': ' + stop if stop else ''}); see {pdir}/run-qemu.log and guest/console.log")
    return 1 if regress or bad_guest else 0


if __name__ == "__main__":
    sys.exit(main())
