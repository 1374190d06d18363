"""The session's parameters: the last valid parameters of each boundary rule, which rule
the panes show, the external chunkers compared with, and a pair example's own
parameters, which live only while the example is shown (the user's wait and come back
when their documents load; only theirs are what the settings remember).

`SessionParams` is the parameters part of `Session` (session.py), which inherits it; it
uses the session's state and events and is not used alone.
"""

from __future__ import annotations

from typing import Any, Mapping

from steadlith_core.chunking.rules import check_rule, rule_of

from .external_choice import ExternalChoice


class SessionParams:
    """The parameters part of Session: the rules' parameters and the example's."""

    @property
    def params(self) -> Any:
        """The parameters in force for the shown rule (the last valid ones)."""
        return self._params[self.rule]

    def params_for(self, rule: str) -> Any:
        return self._params[rule]

    @property
    def params_by_rule(self) -> dict[str, Any]:
        """Every rule's last valid parameters, the shown rule first."""
        return {self.rule: self._params[self.rule],
                **{r: p for r, p in self._params.items() if r != self.rule}}

    def set_params(self, params: Any, *, show: bool = False) -> None:
        """New parameters for their rule (`show`: the panes switch to that rule); the
        analysis is asked for again: every rule is compared in the churn panel."""
        rule = rule_of(params)
        with self.hold_analysis():
            self._params[rule] = params
            self.events.params_changed.emit(params)
            if show:
                self.set_rule(rule)
        self.request_analysis()

    def set_rule(self, rule: str) -> None:
        """Show `rule` in the panes; its last valid parameters come back as they were."""
        rule = check_rule(rule)
        if rule != self.rule:
            self.rule = rule
            self.events.rule_changed.emit(rule)
            self.request_analysis()

    def set_external(self, choice: ExternalChoice) -> None:
        """Compare with other chunkers, or show one in the panes (`choice.shown`). Either
        asks for an analysis: the worker lays the shown chunking out (its splitters'
        spans are cached there, so showing one costs no splitter run)."""
        if choice == self.external:
            return
        self.external = choice
        self.events.external_changed.emit(choice)
        self.request_analysis()

    # -- examples -----------------------------------------------------------------------
    def enter_example(self, name: str, own_params: bool) -> Any:
        """An example is about to be shown. If it brings parameters of its own, keep the
        user's aside (once: from one example to another the user's are kept, not the
        first example's). Returns the user's parameters to show again when an example
        without parameters follows one with them, else None."""
        restore = None
        if own_params:
            if self._user_params is None:
                self._user_params = dict(self._params)
        elif self._user_params is not None:
            restore = self._take_user_params()
        self.example = name
        self._example_seq = None
        return restore

    def _take_user_params(self) -> Any:
        saved, self._user_params = self._user_params or {}, None
        for rule, p in saved.items():
            if rule != self.rule:
                self._params[rule] = p
                self.events.params_changed.emit(p)  # the panel's form of that rule shows it again
        return saved.get(self.rule)

    def example_loading(self, seq: int) -> None:
        """Loader batch `seq` brings the example's documents (any other load leaves it)."""
        self._example_seq = seq

    def leave_example(self, restore: bool = True) -> None:
        """The user's own documents replace the example: `example_left` carries the
        user's parameters to show again (None when the example kept them, or when the
        caller sets parameters itself, as a workspace does)."""
        if self.example is None:
            return
        params = self._take_user_params() if restore else None
        self.example, self._example_seq, self._user_params = None, None, None
        with self.hold_analysis():  # the caller (a load, a workspace) asks once, afterwards
            self.events.example_left.emit(params)

    @property
    def persisted_params(self) -> Any:
        """The parameters the settings remember: the user's own, never an example's."""
        if self.example is not None and self._user_params is not None:
            return self._user_params[self.rule]
        return self.params

    @property
    def persisted_params_by_rule(self) -> dict[str, Any]:
        """Every rule's parameters the settings remember: the user's own, never an example's."""
        if self.example is not None and self._user_params is not None:
            return dict(self._user_params)
        return self.params_by_rule

    def set_all_params(self, by_rule: Mapping[str, Any], rule: str | None = None) -> None:
        """Parameters of several rules at once (a workspace, the settings), checked whole
        before any is taken; `rule` is then shown. One analysis follows."""
        checked = {rule_of(p): p for p in by_rule.values()}
        if rule is not None:
            check_rule(rule)
        with self.hold_analysis():
            for p in checked.values():
                self._params[rule_of(p)] = p
                self.events.params_changed.emit(p)
            if rule is not None:
                self.set_rule(rule)
        self.request_analysis()
