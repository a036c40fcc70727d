"""engine.errors: the first problem of a validation, as one line naming the field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.errors import first_error, one_line
from engine.specs import Sharding, TrainingSetup


def _error(**fields: object) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        TrainingSetup.model_validate(fields)
    return caught.value


def test_a_nested_field_is_named_by_its_dotted_path() -> None:
    err = _error(lora={"rank": 0})
    assert first_error(err) == ("lora.rank", "Input should be greater than or equal to 1")
    assert one_line(err) == "lora.rank: Input should be greater than or equal to 1"


def test_a_prefix_names_where_the_model_sits() -> None:
    assert one_line(_error(seq_len=0), "setup").startswith("setup.seq_len: Input should be greater")


def test_a_rule_across_fields_falls_back_to_the_given_name() -> None:
    err = _error(offload_params=True, sharding=Sharding.NONE)
    where, message = first_error(err, fallback="offload_params")
    assert where == "offload_params"
    assert "offload_params needs sharding zero3" in message
    assert one_line(err).startswith("input: ")
