"""Verdicts and arms (enum mkb_verdict, enum mkb_arm): integers, as in C, that print by name."""
from __future__ import annotations

import enum


class _NamedIntEnum(enum.IntEnum):
    """An IntEnum whose str() and format() give the member's name ("PASSED"), not its number."""

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec)


class Verdict(_NamedIntEnum):
    """The outcome of one evaluation (enum mkb_verdict); include/mkb.h says what each means."""

    PASSED = 0
    REFUSED = 1
    COMPILE_ERROR = 2
    LAUNCH_ERROR = 3
    WRONG_ANSWER = 4
    OUT_OF_BOUNDS = 5
    INPUT_MODIFIED = 6
    FAULT = 7
    TIMEOUT = 8
    OUT_OF_MEMORY = 9
    CRASHED = 10
    INCONSISTENT = 11
    COMPILED = 12
    NO_KERNEL = 13


class Arm(_NamedIntEnum):
    """The arm of the four-arm protocol a task belongs to (enum mkb_arm)."""

    SOLO_A = 0
    SOLO_B = 1
    A2B_SKILL = 2
    B2A_SKILL = 3
