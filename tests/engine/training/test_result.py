"""The verdict against a GPU: the device total against the memory one process may use (``GpuSpec.usable_bytes``),
which is below the memory only where the vendor documents a cap (Apple's Metal working set)."""

from engine.catalog import get_gpu, get_model, gpus
from engine.specs import GpuSpec, Method, TrainingSetup
from engine.training import estimate
from engine.training.advisor import max_seq_len
from engine.training.result import TIGHT_HEADROOM, Verdict

M = get_model("llama-2-7b")
S = TrainingSetup(method=Method.LORA, seq_len=1024)
DEVICE = estimate(M, S, get_gpu("h200")).device_bytes


def _gpus(fraction: float) -> tuple[GpuSpec, GpuSpec]:
    """Two GPUs of the same memory, holding the device total in 60% of it: one capped at ``fraction``."""
    capped = GpuSpec(id="capped", name="capped", vendor="Apple", memory_bytes=round(DEVICE / 0.6),
                     usable_fraction=fraction, unified_memory=True)
    return capped.model_copy(update={"usable_fraction": 1.0}), capped


def test_a_documented_cap_turns_a_fit_into_over() -> None:
    whole, capped = _gpus(0.5)
    free = estimate(M, S, whole)
    held = estimate(M, S, capped)
    assert held.device_bytes == free.device_bytes == DEVICE
    assert free.fits
    assert free.verdict is Verdict.FITS
    assert free.headroom_bytes == whole.memory_bytes - DEVICE
    assert not held.fits
    assert held.verdict is Verdict.OVER
    assert held.headroom_bytes == capped.usable_bytes - DEVICE < 0


def test_tight_is_measured_against_the_usable_memory() -> None:
    """65% usable of a memory holding the device total in 60%: 5% of the usable memory left, under 10%."""
    _, capped = _gpus(0.65)
    e = estimate(M, S, capped)
    assert e.fits
    assert e.headroom_bytes < TIGHT_HEADROOM * capped.usable_bytes
    assert e.verdict is Verdict.TIGHT


def test_gpus_without_a_documented_cap_use_all_their_memory() -> None:
    for g in gpus():
        if g.vendor != "Apple":
            assert g.usable_bytes == g.memory_bytes, g.id
    h200 = get_gpu("h200")
    assert estimate(M, S, h200).headroom_bytes == h200.memory_bytes - DEVICE


def test_the_longest_sequence_that_fits_a_mac_respects_its_cap() -> None:
    mac = get_gpu("m4-max-128gb")
    n = max_seq_len(M, S, mac)
    assert n is not None
    assert estimate(M, S.with_(seq_len=n), mac).device_bytes <= mac.usable_bytes < mac.memory_bytes
    assert not estimate(M, S.with_(seq_len=n + 1), mac).fits
    uncapped = mac.model_copy(update={"usable_fraction": 1.0})
    assert (max_seq_len(M, S, uncapped) or 0) > n
