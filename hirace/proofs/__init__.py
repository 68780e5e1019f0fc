"""The proofs that let hirace reduce an access's check to its bounds test: one analysis.

Data flows one way: `facts.FactTable` runs the analyses once per unit (barrier intervals:
`intervals.py` with `tree_forms.py` and `apart.py`/`affine.py`; kernel parameters:
`readonly_params.py` with `own_index.py`); each rule of `rules.RULES` consults it and returns a
typed `proof.Proof` per access (which rule, the launch condition it needs, the check it leaves,
or why the access is checked whole); `conditions.py` is the one renderer of launch conditions;
`quiet_version.py` copies a kernel whose every access has a proof, from the plan's quiet forms.
Each rule's soundness argument is written at the top of the module that proves it.
"""
