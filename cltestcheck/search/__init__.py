"""`cltc search`: inputs a suite's tests lack, found by running the program on inputs made from theirs
(docs/cltc.md, 'Searching for inputs'). One module a job: inputs.py (what an input is, where it runs),
values.py and graphs.py (changes of numbers, bytes, text, Indigo graphs), havoc.py (a new input from
an old one), distance_planner.py and climb.py (the distance-guided step), goals.py (what there is to
reach), runs.py (a run under coverage), races.py (a run under hirace), loop.py (the search),
journal.py (resuming), suite_out.py (the tests written), report.py, command.py."""
