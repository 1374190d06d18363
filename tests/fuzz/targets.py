"""Every target, by name, in the order a full run visits them."""

from __future__ import annotations

from .inputs import JOURNAL, QUESTIONS, REVISION, SET, WORKSPACE
from .kernel import KERNEL_AGREE, KERNEL_BYTES, KERNEL_LIMITS
from .target import Target

TARGETS: dict[str, Target] = {t.name: t for t in (SET, WORKSPACE, QUESTIONS, JOURNAL, REVISION, KERNEL_BYTES,
                                                   KERNEL_LIMITS, KERNEL_AGREE)}
