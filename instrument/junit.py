"""JUnit XML, as CI test reporters read it (GitLab `artifacts:reports:junit`, Jenkins' junit step,
GitHub's test-report actions): `<testsuites>` holding one `<testsuite>` per suite, a `<testcase>` per
test with a `<failure>` per finding, an `<error>` where the test could not run, a `<skipped>` where
nothing was checked; the counts (`tests`, `failures`, `errors`, `skipped`) on both levels agree
with the cases. A tool builds `Suite`s and writes them with `write` (whole or not at all, never
over a file the run read: instrument/output.py)."""
from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .output import atomic_write_bytes

# characters XML 1.0 cannot hold (a program's output may carry any byte): replaced, not dropped silently
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


@dataclass
class Problem:
    """A failure (a finding) or an error (the test could not run) of a case."""
    message: str             # one line: the attribute reporters show in lists
    type: str                # what kind (a rule id: hirace/data-race)
    text: str = ""           # the whole report of it


@dataclass
class Case:
    name: str
    classname: str
    failures: list[Problem] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    skipped: str | None = None     # why nothing was checked (None: it ran)
    time: float | None = None      # seconds, where the tool measured them
    output: str = ""               # <system-out>


@dataclass
class Suite:
    name: str
    cases: list[Case] = field(default_factory=list)
    time: float = 0.0
    timestamp: datetime = field(default_factory=lambda: datetime.now(timezone.utc))


def _counts(cases: list[Case]) -> dict[str, int]:
    return {"tests": len(cases), "failures": sum(bool(c.failures) and not c.errors for c in cases),
            "errors": sum(bool(c.errors) for c in cases), "skipped": sum(c.skipped is not None for c in cases)}


def _attrs(counts: dict[str, int], time: float) -> dict[str, str]:
    return {**{k: str(v) for k, v in counts.items()}, "time": f"{time:.3f}"}


def _problem(parent: ET.Element, tag: str, p: Problem) -> None:
    e = ET.SubElement(parent, tag, {"message": _xml_text(p.message), "type": _xml_text(p.type)})
    e.text = _xml_text(p.text)


def to_xml(suites: list[Suite]) -> bytes:
    """The document: a case with errors counts as an error (not also a failure), as reporters count."""
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    root = ET.Element("testsuites")
    host = socket.gethostname()
    for s in suites:
        counts = _counts(s.cases)
        for k in total:
            total[k] += counts[k]
        se = ET.SubElement(root, "testsuite", {"name": _xml_text(s.name), **_attrs(counts, s.time),
                                               "timestamp": s.timestamp.strftime("%Y-%m-%dT%H:%M:%S"),
                                               "hostname": host})
        for c in s.cases:
            attrs = {"name": _xml_text(c.name), "classname": _xml_text(c.classname)}
            if c.time is not None:
                attrs["time"] = f"{c.time:.3f}"
            ce = ET.SubElement(se, "testcase", attrs)
            if c.skipped is not None:
                ET.SubElement(ce, "skipped", {"message": _xml_text(c.skipped)})
            for e in c.errors:
                _problem(ce, "error", e)
            for f in c.failures:
                _problem(ce, "failure", f)
            if c.output:
                ET.SubElement(ce, "system-out").text = _xml_text(c.output)
    root.attrib.update({"name": suites[0].name if len(suites) == 1 else "",
                        **_attrs(total, sum(s.time for s in suites))})
    if not root.attrib["name"]:
        del root.attrib["name"]
    ET.indent(root, space=" ")
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write(path: str | Path, suites: list[Suite]) -> None:
    """Write the JUnit file whole (a reader never sees half of it), never over one of the run's inputs."""
    atomic_write_bytes(path, to_xml(suites))
