"""The typed result of the analysis, one per access: which check it gets and why.

Every access the planner instruments gets a `Proof`: either a rule proved that it races with
nothing (under a launch condition, where it needs one) and its check is reduced to the bounds test
the rule leaves (`entry`: the runtime function it calls), or no rule applied and it is checked
whole (`rule` None, `why` says why). The site table and `hirace explain` carry it to the user.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from instrument.protocol import QUIET_FORMS

from .conditions import Condition


class Rule(enum.Enum):
    """The proofs that let a check be reduced to its bounds test; each value: (name, what it proved).
    Each rule's argument is written beside its analysis (the module named)."""
    QUIET_SHARED_READ = ("quiet shared read", "no thread of the block writes its array in its barrier interval "
                         "(or, above a tree reduction's stride, none writes its word)")              # intervals.py
    QUIET_SHARED_ATOMIC = ("quiet shared atomic", "every access to its array in its barrier interval is an "
                           "atomic")                                                                 # intervals.py
    OWN_SHARED_WORD = ("own shared word", "in its barrier interval each thread writes and reads only its own "
                       "word of the array")                                                          # intervals.py
    LANES_APART = ("lanes apart", "the lane + offset writes of its barrier interval never meet: each thread's "
                   "words are its own")                                                              # tree_forms.py
    APART = ("apart", "no other thread's access in its barrier interval names its word (integer arithmetic "
             "on the index expressions)")                                                            # apart.py
    READONLY_PARAM = ("read-only parameter", "the kernel never writes through this parameter; the launch "
                      "checks that no written argument points into its buffer")                    # readonly_params.py
    OWN_PARAM = ("own parameter", "every access through this parameter names the thread's own element; the "
                 "launch checks that no other argument points into its buffer")                    # readonly_params.py
    ATOMIC_PARAM = ("atomic parameter", "only device-scope atomics reach this parameter; the launch checks that "
                    "no other argument points into its buffer")                                     # readonly_params.py
    CALL_CONTEXT = ("quiet at proved calls", "an access through a reference parameter, which names only its argument's "
                    "word: quiet in the calls whose arguments' words are proved apart (where their conditions hold), "
                    "checked whole in every other call")                                             # call_context.py

    ATOMIC_CALL = ("atomic at proved calls", "an atomic through a pointer parameter: in the calls that prove the "
                   "declared shared array it points into touched only by atomics in their barrier interval, only its "
                   "bounds in that array are tested; checked whole in every other call")           # shared_calls.py

    @property
    def title(self) -> str:
        return self.value[0]

    @property
    def argument(self) -> str:
        return self.value[1]


@dataclass(frozen=True)
class Proof:
    """How one access is checked. `entry`: the runtime's check it calls (`rd`, `rd_bounds`,
    `wr_private` ...); `condition`: what the launch must satisfy for the rule to hold (where it
    fails the access takes the whole check); `bit`: the quiet parameter's bit (parameter rules);
    `own_var`: the kernel's variable holding its own-index test (own parameters: the condition is
    tested once, at the kernel's entry, into that variable, which the check then takes)."""
    rule: Rule | None
    entry: str
    condition: Condition | None = None
    bit: int | None = None
    own_var: str | None = None
    why: str = ""        # a whole check: why no rule applied
    # a shared access whose index lies inside its array where this holds (bounds.py): in a quiet
    # version, which tests the condition before it runs, the access as written (no bounds test)
    inside: Condition | None = None

    def __post_init__(self):
        # a proof's check is one of the runtime's quiet entries (each has its namesake in the quiet
        # version's namespace: protocol.QUIET_FORMS, checked by quiet_version.h at compile time)
        if self.rule is not None and self.entry not in QUIET_FORMS:
            raise ValueError(f"rule {self.rule.name} leaves {self.entry}, which is not a quiet form of the runtime")

    @property
    def whole(self) -> bool:
        return self.rule is None

    @property
    def condition_at_site(self) -> Condition | None:
        """The condition the site's check tests itself (an own parameter's is its kernel's variable)."""
        return self.condition if self.own_var is None else None

    def describe(self) -> str:
        """One line for a user: `checked whole: why` or `bounds only: rule (argument) where C`."""
        if self.rule is None:
            return f"checked whole: {self.why}" if self.why else "checked whole"
        where = f", where {self.condition.device()}" if self.condition is not None else ""
        return f"bounds only: {self.rule.title}: {self.rule.argument}{where}"


def whole(entry: str, why: str) -> Proof:
    return Proof(None, entry, why=why)
