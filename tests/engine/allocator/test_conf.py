"""engine.allocator.conf: PYTORCH_CUDA_ALLOC_CONF strings as PyTorch parses them (torch 2.13's
c10/test/core/AllocatorConfig_test.cpp gives the division tables), and one clear line for a bad one."""

from __future__ import annotations

import pytest

from engine.allocator.conf import AllocConfError, parse, settings, to_text
from engine.allocator.rules import MIB
from engine.specs import AllocConf


def test_common_strings() -> None:
    assert parse("expandable_segments:True") == AllocConf(expandable_segments=True)
    c = parse(" max_split_size_mb:128 , garbage_collection_threshold:0.6 ")
    assert c.max_split_size_mb == 128
    assert c.garbage_collection_threshold == 0.6
    assert settings(c).max_split_size == 128 * MIB
    assert parse("expandable_segments:False,") == AllocConf() == parse("")
    assert parse("expandable_segments:True,expandable_segments:False") == AllocConf()  # the later one wins
    assert parse("backend:native,release_lock_on_cudamalloc:True,pinned_num_register_threads:8") == AllocConf()


def test_division_tables_as_pytorchs_test() -> None:
    """AllocatorConfig_test.cpp: [64:8,128:2,256:4,512:2,1024:4,>:1] gives 8 up to 64 MiB, then 2, 4, 2, 4, and 1
    from 2 GiB; [128:8,256:16,512:1,2048:8,>:2] leaves 1 GiB at 0; a single number sets all 16."""
    assert parse("roundup_power2_divisions:[64:8,128:2,256:4,512:2,1024:4,>:1]").roundup_power2_divisions == (
        8, 8, 8, 8, 8, 8, 8, 2, 4, 2, 4, 1, 1, 1, 1, 1)
    assert parse("roundup_power2_divisions:[128:8,256:16,512:1,2048:8,>:2]").roundup_power2_divisions == (
        8, 8, 8, 8, 8, 8, 8, 8, 16, 1, 0, 8, 2, 2, 2, 2)
    assert parse("roundup_power2_divisions:4").roundup_power2_divisions == (4,) * 16


@pytest.mark.parametrize("text", ["expandable_segments:True", "max_split_size_mb:512,max_non_split_rounding_mb:64",
                                  "garbage_collection_threshold:0.8,per_process_memory_fraction:0.9",
                                  "roundup_power2_divisions:[64:8,>:2]", "roundup_power2_divisions:2"])
def test_round_trip(text: str) -> None:
    c = parse(text)
    assert parse(to_text(c)) == c


@pytest.mark.parametrize(("text", "message"), [
    ("max_split_size_mb:10", "max_split_size_mb: 10 is too small, must be >= 20"),
    ("expandable_segments:true", "expandable_segments: expected True or False, found 'true'"),
    ("garbage_collection_threshold:1.5", "garbage_collection_threshold: 1.5 is outside (0.0, 1.0)"),
    ("max_split_size_mb:abc", "max_split_size_mb: expected a whole number, found 'abc'"),
    ("max_split_size_mb:", "max_split_size_mb: missing at the end"),
    ("roundup_power2_divisions:[64:8", "roundup_power2_divisions: missing at the end"),
    ("roundup_power2_divisions:3", "roundup_power2_divisions: the divisions have to be a power of 2"),
    ("foo:123,bar:456", "foo: unrecognized option"),
    ("backend:cudaMallocAsync", "backend: cudaMallocAsync hands memory to CUDA's own"),
    ("large_segment_size_mb:15", "large_segment_size_mb: changes the 20 MiB segments"),
    ("expandable_segments:True;max_split_size_mb:30", "expandable_segments: expected True or False"),
])
def test_bad_strings_name_the_option(text: str, message: str) -> None:
    with pytest.raises(AllocConfError) as err:
        parse(text)
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)
