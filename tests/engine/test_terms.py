"""engine.terms: every term name is defined once, with a label and a scope."""

from __future__ import annotations

import pytest

from engine.terms import TERMS, Scope, TermName, in_scope, term_def


def test_every_name_is_defined_with_a_label() -> None:
    assert set(TERMS) == set(TermName)
    for name, d in TERMS.items():
        assert d.name == name
        assert d.label.strip()


def test_scopes_list_terms_in_their_stacking_order() -> None:
    assert in_scope(Scope.TRAINING) == ("weights", "gradients", "optimizer_states", "activations", "logits",
                                        "sharding_buffers", "temporaries", "parallel_buffers")
    assert in_scope(Scope.DEVICE) == ("allocator_reserve", "cuda_context")


def test_an_unknown_term_is_named() -> None:
    assert term_def("kv_cache").label == "KV cache"
    with pytest.raises(KeyError, match="'nope' is not a defined memory term"):
        term_def("nope")
