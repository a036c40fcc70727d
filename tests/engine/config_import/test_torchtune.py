"""torchtune's mapping table (engine/config_import/torchtune.py cites torchtune 0.7.0)."""

from __future__ import annotations

import pytest

from engine.config_import import AlignmentMethod
from engine.config_import.report import ConfigRefusedError

LORA = """model:
  _component_: torchtune.models.llama3_1.lora_llama3_1_8b
  lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']
  apply_lora_to_mlp: True
tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  max_seq_len: 2048
optimizer:
  _component_: torch.optim.AdamW
batch_size: 4
dtype: bf16
"""


def test_torchtunes_usual_target_set_is_qvo_mlp_and_its_stack(imported):
    r = imported({"a.yaml": LORA})
    s = r.setup
    assert r.model.id == "llama-3.1-8b"
    assert (s.method.value, s.lora.rank, s.lora.alpha, s.lora.dropout) == ("lora", 8, 16.0, 0.0)  # builder defaults
    assert s.lora.targets.value == "qvo-mlp"  # q_proj, v_proj, output_proj + apply_lora_to_mlp: exactly
    assert "lora.targets" not in r.report.assumed
    assert s.stack.value == "torchtune"  # the file's own tool runs the step (issue 25)
    assert (s.seq_len, s.batch, s.grad_accum, s.precision.value) == (2048, 4, 1, "bf16")
    assert s.checkpointing.value == "none"  # the recipes' default


def test_launch_comment_gives_gpus_and_fsdp(imported):
    text = "# tune run --nnodes 2 --nproc_per_node 8 lora_finetune_distributed --config x\n" + LORA
    text += "fsdp_cpu_offload: True\n"
    r = imported({"a.yaml": text})
    assert (r.setup.gpus, r.setup.sharding.value, r.setup.offload_params) == (16, "zero3", True)
    assert r.report.assumed["gpus"] == 16


@pytest.mark.parametrize(("component", "momentum", "optimizer"), [
    ("bitsandbytes.optim.PagedAdamW8bit", None, "paged-adamw-8bit"),
    ("torch.optim.SGD", 0.9, "sgd-momentum"),
    ("torch.optim.SGD", None, "sgd"),
])
def test_optimizer_classes(imported, component: str, momentum: float | None, optimizer: str):
    text = LORA.replace("torch.optim.AdamW", component) + (f"  momentum: {momentum}\n" if momentum else "")
    text = text.replace("batch_size: 4\n", "").replace("dtype: bf16\n", "") + "batch_size: 4\ndtype: bf16\n"
    assert imported({"a.yaml": text}).setup.optimizer.value == optimizer


def test_qlora_and_full_builders(imported):
    assert imported({"a.yaml": LORA.replace("lora_llama3_1_8b", "qlora_llama3_1_8b")}).setup.method.value == "qlora"
    full = "model:\n  _component_: torchtune.models.qwen2_5.qwen2_5_7b_instruct\noptimizer:\n" \
           "  _component_: torch.optim.AdamW\nbatch_size: 1\ndtype: fp32\n"
    r = imported({"b.yaml": full})
    assert (r.model.id, r.setup.method.value, r.setup.precision.value) == ("qwen2.5-7b", "full", "fp32")


@pytest.mark.parametrize(("component", "model_id"), [
    ("torchtune.models.qwen2.lora_qwen2_0_5b", "qwen2-0.5b"),
    ("torchtune.models.qwen2.qwen2_7b", "qwen2-7b"),
    ("torchtune.models.qwen2_5.lora_qwen2_5_1_5b_instruct", "qwen2.5-1.5b"),
    ("torchtune.models.qwen2_5.qwen2_5_1_5b_base", "qwen2.5-1.5b"),
    ("torchtune.models.gemma.qlora_gemma_2b", "gemma-2b"),
    ("torchtune.models.gemma.gemma_7b", "gemma-7b"),
    ("torchtune.models.code_llama2.lora_code_llama2_7b", "codellama-7b"),
    ("torchtune.models.smol.smollm2_1_7b", "smollm2-1.7b"),
    ("torchtune.models.phi3.lora_phi3_mini", "phi-3-mini"),
])
def test_builders_name_their_catalog_model(imported, component: str, model_id: str):
    """torchtune/models/*/_model_builders.py @ bd2a0fc7 (code_llama2: before its removal, da507a05): the builder
    names the model, whatever checkpoint_dir says."""
    text = LORA.replace("torchtune.models.llama3_1.lora_llama3_1_8b", component)
    r = imported({"a.yaml": text + "checkpointer:\n  checkpoint_dir: /tmp/somewhere-else/\n"})
    assert r.model.id == model_id
    assert "model" not in r.report.assumed


def test_a_refused_models_builder_is_refused_by_name(imported):
    """torchtune recipes/configs/llama3_2_vision/11B_lora.yaml builds llama3_2_vision_11b: its cross-attention
    layers are refused, naming the builder, not reported as an unknown checkpoint folder."""
    text = LORA.replace("torchtune.models.llama3_1.lora_llama3_1_8b",
                        "torchtune.models.llama3_2_vision.lora_llama3_2_vision_11b")
    with pytest.raises(ConfigRefusedError, match=r"^a.yaml: model._component_: llama3_2_vision_11b is Llama 3.2 "
                                                 r"Vision 11B / 90B, which has cross-attention layers"):
        imported({"a.yaml": text})


def test_dpo_recipes(imported):
    text = LORA + "loss:\n  _component_: torchtune.rlhf.loss.DPOLoss\n"
    assert imported({"a.yaml": text}).alignment is AlignmentMethod.DPO


@pytest.mark.parametrize(("text", "says"), [
    ("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nbatch_size: 1\n", "not a training config"),
    (LORA.replace("dtype: bf16", "dtype: fp16"), "dtype: fp16 training is not costed"),
    (LORA.replace("lora_llama", "qlora_llama").replace("apply_lora_to_mlp: True",
                                                       "apply_lora_to_mlp: True\n  use_dora: True"),
     "model.use_dora: DoRA is costed on LoRA over a 16-bit base"),
])
def test_refusals(imported, text: str, says: str):
    with pytest.raises(ConfigRefusedError, match=f"^a.yaml: {says}"):
        imported({"a.yaml": text})


def test_dora(imported):
    text = LORA.replace("apply_lora_to_mlp: True", "apply_lora_to_mlp: True\n  use_dora: True")
    s = imported({"a.yaml": text}).setup
    assert (s.method.value, s.dora) == ("lora", True)


def test_tensor_parallel_dim(imported):
    text = "# tune run --nproc_per_node 8 full_finetune_distributed --config x\n" + LORA + "tensor_parallel_dim: 8\n"
    s = imported({"a.yaml": text}).setup
    assert (s.parallel.tp, s.gpus) == (8, 8)


@pytest.mark.parametrize(("loss", "expected", "chunks"), [
    ("  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\n  num_output_chunks: 16\n", "chunked-output", 16),
    ("  _component_: torchtune.modules.loss.LinearCrossEntropyLoss\n", "fused-linear-ce", None),
    ("  _component_: torch.nn.CrossEntropyLoss\n", "standard", None),
])
def test_losses_and_offloading(imported, loss: str, expected: str, chunks: int | None):
    s = imported({"a.yaml": LORA + "loss:\n" + loss + "enable_activation_offloading: True\n"}).setup
    assert (s.loss.value, s.loss_chunks, s.activation_offload) == (expected, chunks, True)


# -- keys of older torchtune releases (v0.1 to v0.3: recipes/configs at the tags) ---------------------------------

OLD = """model:
  _component_: torchtune.models.llama2.lora_llama2_7b
  lora_attn_modules: ['q_proj', 'v_proj']
optimizer:
  _component_: torch.optim.AdamW
batch_size: 2
"""


def test_the_dataset_sequence_length_of_torchtune_0_2(imported):
    """Before v0.3 the datasets truncated (``dataset.max_seq_len``: recipes/configs/llama2/7B_lora_dpo.yaml and
    phi3/mini_full.yaml at v0.2.1); v0.3 moved it to the tokenizer."""
    r = imported({"a.yaml": OLD + "dataset:\n  _component_: torchtune.datasets.alpaca_cleaned_dataset\n"
                                  "  max_seq_len: 512\n"})
    assert r.setup.seq_len == 512
    assert r.report.read["dataset.max_seq_len"] == 512
    both = OLD + "tokenizer:\n  max_seq_len: 1024\ndataset:\n  max_seq_len: 512\n"
    assert imported({"b.yaml": both}).setup.seq_len == 512  # the shorter truncates
    several = OLD + "dataset:\n  - _component_: a\n    max_seq_len: 256\n  - _component_: b\n    max_seq_len: 768\n"
    assert imported({"c.yaml": several}).setup.seq_len == 768


def test_selective_checkpointing_of_the_distributed_recipes(imported):
    """``ac_mode`` / ``ac_option`` (full_finetune_distributed.py, v0.2 to today) apply when
    ``enable_activation_checkpointing`` is false: ``full`` checkpoints every layer; ``selective`` with k every k-th
    layer (training/activations.py ``apply_selective_activation_checkpointing``): full with checkpoint_every k."""
    off = OLD + "enable_activation_checkpointing: False\n"
    assert imported({"a.yaml": off + "ac_mode: full\n"}).setup.checkpointing.value == "full"
    assert imported({"b.yaml": off + "ac_mode: selective\nac_option: 1\n"}).setup.checkpointing.value == "full"
    r = imported({"c.yaml": off + "ac_mode: selective\nac_option: 2\n"})
    assert (r.setup.checkpointing.value, r.setup.checkpoint_every) == ("full", 2)
    assert "ac_option" in r.report.read
    on = imported({"d.yaml": OLD + "enable_activation_checkpointing: True\nac_mode: selective\nac_option: 2\n"})
    assert on.setup.checkpointing.value == "full"  # ac_mode applies only without full checkpointing
    assert any(i.key == "ac_mode" for i in on.report.ignored)


def test_the_fsdp_wrapping_option_of_torchtune_0_2_is_explained(imported):
    r = imported({"a.yaml": OLD + "memory_efficient_fsdp_wrap: True\n"})
    assert "does not model" in str(next(i.why for i in r.report.ignored if i.key == "memory_efficient_fsdp_wrap"))


def test_optimizer_in_backward_is_read(imported):
    """``optimizer_in_bwd: True`` (recipes/configs/llama3_1/8B_full_single_device.yaml): each parameter's step in
    backward (engine.training.terms: one gradient at a time)."""
    text = ("model:\n  _component_: torchtune.models.llama2.llama2_7b\noptimizer:\n  _component_: torch.optim.AdamW\n"
            "optimizer_in_bwd: True\nbatch_size: 2\n")
    r = imported({"a.yaml": text})
    assert (r.setup.optimizer_in_backward, r.setup.stack.value) == (True, "torchtune")
    assert "optimizer_in_bwd" in r.report.read
