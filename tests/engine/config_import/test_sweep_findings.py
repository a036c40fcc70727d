"""What a blind sweep of the six tools' example folders found (issue 16): each test is a minimal config showing one
thing the import got wrong or said misleadingly, written from the tools' own examples and sources (cited)."""

from __future__ import annotations

import pytest

from engine.catalog import get_model
from engine.config_import import AlignmentMethod
from engine.config_import.report import ConfigRefusedError

AXOLOTL = "base_model: meta-llama/Llama-3.1-8B\nsequence_len: 2048\nbf16: true\n"
MOE = "base_model: Qwen/Qwen3-30B-A3B\nsequence_len: 2048\nbf16: true\n"
CCE = "plugins:\n  - axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin\n"


def _why(r, key: str) -> str:
    return str(next(i.why for i in r.report.ignored if i.key == key))


# -- the GPU count a layout needs ---------------------------------------------------------------------------------

def test_expert_parallelism_alone_assumes_the_gpus_it_needs(imported):
    """Axolotl examples/expert_parallel/qwen3_30ba3b_ep_fft_4gpu.yaml: ``expert_parallel_size: 4 # world size 4`` and
    no GPU count; expert parallelism is carved from the data-parallel ranks, so one GPU cannot hold it."""
    r = imported({"a.yaml": MOE + "expert_parallel_size: 4\n"})
    assert (r.setup.gpus, r.setup.parallel.ep) == (4, 4)
    assert r.report.assumed["gpus"] == 4


def test_megatron_pipeline_and_expert_parallelism_assume_their_world(imported):
    """LLaMA-Factory examples/megatron/qwen3_moe_full.yaml ("GPU memory: 8 * 78GB"): pp 4 with ep 2 needs 8 GPUs
    (ep divides the data-parallel ranks of each stage: 8 / 4 = 2)."""
    text = ("model_name_or_path: Qwen/Qwen3-30B-A3B\nstage: sft\ndo_train: true\nfinetuning_type: full\n"
            "bf16: true\ntensor_model_parallel_size: 1\npipeline_model_parallel_size: 4\n"
            "expert_model_parallel_size: 2\nuse_distributed_optimizer: true\n")
    r = imported({"a.yaml": text})
    assert (r.setup.gpus, r.setup.parallel.pp, r.setup.parallel.ep) == (8, 4, 2)


def test_a_layout_the_model_cannot_take_is_refused_naming_the_file_and_key(imported):
    """A layout rule the engine enforces (here: QLoRA's bitsandbytes base is not split by context parallelism) is
    refused at import, naming the file and the key that set the layout, not later as a bare engine error."""
    text = AXOLOTL + "adapter: qlora\nload_in_4bit: true\ncontext_parallel_size: 2\n"
    with pytest.raises(ConfigRefusedError, match=r"^a.yaml: context_parallel_size: .*QLoRA"):
        imported({"a.yaml": text})


def test_axolotl_data_parallel_sizes_give_the_gpu_count(imported):
    """Axolotl examples/distributed-parallel/llama-3_1-8b-hsdp-tp.yaml: ``dp_shard_size: 4``,
    ``dp_replicate_size: 2``, ``tensor_parallel_size: 2``: 16 GPUs, FSDP sharding within groups of 4 x 2 and
    replicas across them (reported: the estimate shards over all of them)."""
    text = AXOLOTL + ("dp_shard_size: 4\ndp_replicate_size: 2\ntensor_parallel_size: 2\nfsdp_version: 2\n"
                      "fsdp_config:\n  reshard_after_forward: true\n")
    r = imported({"a.yaml": text})
    assert (r.setup.gpus, r.setup.parallel.tp, r.setup.sharding.value) == (16, 2, "zero3")
    assert r.report.read["dp_shard_size"] == 4
    assert "2 copies of the model" in _why(r, "dp_replicate_size")
    r = imported({"b.yaml": AXOLOTL + "dp_shard_size: 4\nfsdp_version: 2\nfsdp_config:\n  offload_params: false\n"})
    assert r.setup.gpus == 4
    assert "gpus" not in r.report.assumed


def test_axolotl_sequence_parallel_degree_is_the_older_context_parallel_size(imported):
    """Axolotl ``sequence_parallel_degree``: "Deprecated: use context_parallel_size instead"
    (src/axolotl/utils/schemas/config.py, validation.py copies it over)."""
    r = imported({"a.yaml": AXOLOTL + "sequence_parallel_degree: 4\nflash_attention: true\n"})
    assert r.setup.parallel.cp == 4


def test_accelerate_hybrid_sharding_by_parallelism_config_is_reported(imported):
    """accelerate examples/torch_native_parallelism/configs/tp_hsdp.yaml: dp_replicate_size 2 x dp_shard_size 2 x
    tp 2 over 8 processes is HSDP; VRAM Lab shards over every data-parallel GPU, which it says."""
    text = ("distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 8\nfsdp_config:\n  fsdp_version: 2\n"
            "  fsdp_reshard_after_forward: true\nparallelism_config:\n  parallelism_config_dp_replicate_size: 2\n"
            "  parallelism_config_dp_shard_size: 2\n  parallelism_config_tp_size: 2\n")
    r = imported({"a.yaml": text})
    assert (r.setup.gpus, r.setup.parallel.tp, r.setup.sharding.value) == (8, 2, "zero3")
    assert "2 copies of the model" in _why(r, "parallelism_config.parallelism_config_dp_replicate_size")


def test_llama_factory_v1_expert_parallelism_and_ulysses(imported):
    """LLaMA-Factory v1 (src/llamafactory/v1/config/training_args.py: ``cp_size``, ``cp_mode`` default ulysses; the
    fsdpturbo plugin's ``dist_config.ep_size``)."""
    text = "model: Qwen/Qwen3-30B-A3B\ndist_config:\n  name: fsdpturbo\n  ep_size: 4\ncp_size: 1\n"
    r = imported({"a.yaml": text})
    assert (r.setup.parallel.ep, r.setup.gpus, r.setup.sharding.value) == (4, 4, "zero3")
    r = imported({"b.yaml": "model: Qwen/Qwen3-0.6B\ndist_config:\n  name: fsdp2\ncp_mode: ulysses\ncp_size: 2\n"})
    assert (r.setup.parallel.cp, r.setup.parallel.cp_comm_type.value) == (2, "a2a")  # Ulysses: the all-to-all


# -- the loss, the LoRA targets, the method ----------------------------------------------------------------------

def test_the_cut_cross_entropy_plugin_alone_turns_it_on(imported):
    """Axolotl's CutCrossEntropyArgs: ``cut_cross_entropy: Optional[bool] = True``
    (src/axolotl/integrations/cut_cross_entropy/args.py): listing the plugin enables it; 70 of the examples do."""
    r = imported({"a.yaml": AXOLOTL + CCE})
    assert r.setup.loss.value == "fused-linear-ce"
    assert "Cut Cross-Entropy" in _why(r, "plugins")
    r = imported({"b.yaml": AXOLOTL + CCE + "cut_cross_entropy: false\n"})
    assert r.setup.loss.value == "standard"


def test_lora_target_parameters_are_lora_targets(imported):
    """Axolotl ``lora_target_parameters`` (src/axolotl/utils/schemas/peft.py) adapts MoE experts' fused weights:
    examples/minimax/m2-qlora.yaml targets ``mlp.experts.gate_up_proj`` and ``mlp.experts.down_proj`` only."""
    text = MOE + ("adapter: lora\nlora_r: 16\nlora_target_parameters:\n  - mlp.experts.gate_up_proj\n"
                  "  - mlp.experts.down_proj\n")
    r = imported({"a.yaml": text})
    assert r.setup.lora.targets.value == "all-linear"  # the MLP only: the smallest set holding it, reported
    assert "lora.targets" in r.report.assumed
    assert "lora_target_parameters" not in [i.key for i in r.report.ignored if "not a setting" in str(i.why)]
    text = MOE + ("adapter: lora\nlora_target_modules: [q_proj, k_proj, v_proj, o_proj]\n"
                  "lora_target_parameters: [mlp.experts.gate_up_proj, mlp.experts.down_proj]\n")
    r = imported({"b.yaml": text})
    assert r.setup.lora.targets.value == "all-linear"
    assert "lora.targets" not in r.report.assumed  # attention and the whole MLP: every projection


def test_axolotl_gdpo_is_grpos_trainer(imported):
    """Axolotl ``rl: gdpo`` runs TRL's GRPO trainer with per-reward normalisation (src/axolotl/core/builders/rl.py:
    ``if self.cfg.rl in {RLType.GRPO, RLType.GDPO}``): the same models in memory."""
    r = imported({"a.yaml": AXOLOTL + "rl: gdpo\n"})
    assert r.alignment is AlignmentMethod.GRPO


@pytest.mark.parametrize(("name", "text"), [
    ("a.yaml", AXOLOTL + "fp8: true\n"),
    ("b.yaml", "model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\ndo_train: true\n"
               "finetuning_type: full\nbf16: true\nfp8: true\nfp8_backend: torchao\n"),
])
def test_fp8_training_is_refused_by_name(imported, name: str, text: str):
    """Axolotl examples/llama-3/3b-fp8-fsdp2.yaml and LLaMA-Factory examples/extras/fp8/*.yaml: ``fp8: true``
    (torchao float8 training), refused as accelerate's ``mixed_precision: fp8`` is."""
    with pytest.raises(ConfigRefusedError, match=f"^{name}: fp8: fp8 training is not costed"):
        imported({name: text})


@pytest.mark.parametrize("adapter", ["adapter: lora\n", "adapter: qlora\nload_in_4bit: true\n"])
def test_modules_trained_in_full_beside_lora(imported, adapter: str):
    """Axolotl examples/mistral/dpo/mistral-dpo-qlora.yml trains ``embed_tokens`` and ``lm_head`` in full beside
    the adapters (PEFT ``modules_to_save``): costed as their copies with gradients and optimizer states; a module
    the engine does not cost that way (a norm) is refused by name."""
    r = imported({"a.yaml": AXOLOTL + adapter + "lora_modules_to_save:\n  - embed_tokens\n  - lm_head\n"})
    assert [m.value for m in r.setup.modules_to_save] == ["embed_tokens", "lm_head"]
    with pytest.raises(ConfigRefusedError, match=r"^b\.yaml: lora_modules_to_save: "):
        imported({"b.yaml": AXOLOTL + adapter + "lora_modules_to_save:\n  - norm\n"})


def test_training_a_part_of_the_model_is_reported_as_an_upper_bound(imported):
    """Axolotl ``unfrozen_parameters`` (examples/gemma3/*.yml: the language model only) and LISA's layers."""
    r = imported({"a.yaml": AXOLOTL + "unfrozen_parameters:\n  - ^model.language_model.*\n  - ^lm_head.*\n"})
    assert "upper bound" in _why(r, "unfrozen_parameters")
    r = imported({"b.yaml": AXOLOTL + "lisa_n_layers: 4\nlisa_step_interval: 20\n"})
    assert "upper bound" in _why(r, "lisa_n_layers")


# -- what the report says of keys ---------------------------------------------------------------------------------

def test_a_lever_switched_off_is_not_said_to_lower_memory(imported):
    """torchtune configs write ``compile: False``, Axolotl ones ``sample_packing: false``: a switch that is off does
    nothing, so it is not reported as lowering memory or as packing."""
    r = imported({"a.yaml": AXOLOTL + "sample_packing: false\ntorch_compile: false\nliger_rms_norm: false\n"})
    for key in ("sample_packing", "torch_compile", "liger_rms_norm"):
        assert _why(r, key) == "not a setting the memory estimate uses"


def test_alignment_handbooks_older_flash_attention_flag(imported):
    """alignment-handbook's ModelArguments before TRL's (recipes of 2023-24): ``use_flash_attention_2: true``."""
    text = "model_name_or_path: mistralai/Mistral-7B-v0.1\nuse_flash_attention_2: true\nbf16: true\n"
    r = imported({"a.yaml": text})
    assert r.setup.attention.value == "flash"
    assert r.report.read["use_flash_attention_2"] is True


# -- torchtune ----------------------------------------------------------------------------------------------------

TT = """model:
  _component_: torchtune.models.{builder}
tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  max_seq_len: 1024
checkpointer:
  checkpoint_dir: {folder}
optimizer:
  _component_: torch.optim.AdamW
batch_size: 2
dtype: bf16
"""


@pytest.mark.parametrize(("builder", "model"), [
    ("qwen2_5.qwen2_5_3b", "qwen2.5-3b"), ("phi4.phi4_14b", "phi-4"), ("llama3_3.llama3_3_70b", "llama-3.3-70b"),
    ("qwen3.qwen3_8b_instruct", "qwen3-8b"), ("qwen3.qwen3_0_6b_base", "qwen3-0.6b"),
    ("llama4.llama4_scout_17b_16e", "llama-4-scout"),
])
def test_torchtune_builders_the_catalog_holds(imported, builder: str, model: str):
    r = imported({"a.yaml": TT.format(builder=builder, folder="/tmp/unknown")})
    assert r.model.id == model


def test_torchtune_interpolations_are_resolved(imported):
    """torchtune configs are OmegaConf: ``checkpoint_dir: ${base_model_path}`` (recipes/configs/dev/*grpo*.yaml)."""
    text = "base_model_path: /tmp/Qwen3-8B\n" + TT.format(builder="qwen2.x_unknown", folder="${base_model_path}")
    r = imported({"a.yaml": text})
    assert r.model.id == "qwen3-8b"


def test_torchtune_older_fsdp_offload_keys(imported):
    """torchtune before ``fsdp_cpu_offload``: ``fsdp: {cpu_offload: True}`` (recipes/configs/llama2/7B_qlora.yaml)
    and a top-level ``cpu_offload`` (the first recipes)."""
    base = TT.format(builder="llama3_1.llama3_1_8b", folder="/tmp/x")
    for text in ("fsdp:\n  cpu_offload: True\n", "cpu_offload: True\n"):
        r = imported({"a.yaml": "# tune run --nproc_per_node 2 full_finetune_distributed --config x\n" + base + text})
        assert (r.setup.offload_params, r.setup.offload_optimizer) == (True, True)


def test_torchtune_training_section(imported):
    """recipes/configs/dev/qwen3B_async_grpo.yaml keeps its training keys under ``training:``."""
    text = """model:
  _component_: torchtune.models.qwen2_5.qwen2_5_3b
tokenizer:
  _component_: torchtune.models.qwen2_5.qwen2_5_tokenizer
  max_seq_len: 1024
training:
  batch_size: 16
  enable_activation_checkpointing: True
  enable_activation_offloading: True
  optimizer:
    _component_: torch.optim.AdamW
    lr: 1e-5
  loss:
    _component_: torchtune.dev.rl.linear_grpo_loss.LinearGRPOLoss
"""
    r = imported({"qwen3B_async_grpo.yaml": text})
    s = r.setup
    assert (r.model.id, s.batch, s.checkpointing.value, s.activation_offload) == ("qwen2.5-3b", 16, "full", True)
    assert r.alignment is AlignmentMethod.GRPO


def test_a_reasoning_variant_is_its_base_model(imported):
    """mistralai/Ministral-3-3B-Reasoning-2512 (Axolotl examples/ministral3/*) is the Ministral 3 3B architecture
    the catalog holds as its Instruct variant."""
    r = imported({"a.yaml": "base_model: mistralai/Ministral-3-3B-Reasoning-2512\n"})
    assert r.model == get_model("ministral-3-3b")


def test_llama_factory_v1_fsdp2_keeps_the_loaded_bf16_weights(imported):
    """LLaMA-Factory v1 loads the model with ``dtype="auto"`` (v1/core/model_engine.py) and its own FSDP2 plugin
    (v1/plugins/trainer_plugins/distributed/fsdp2.py) shards it with ``MixedPrecisionPolicy(param_dtype=bf16)``
    and no fp32 upcast, unlike accelerate's: the weights and optimizer states stay bf16
    (examples/v1/train_full/train_full_fsdp2.yaml)."""
    text = "model: Qwen/Qwen3-0.6B\ndist_config:\n  name: fsdp2\nmicro_batch_size: 1\ncutoff_len: 2048\n"
    r = imported({"a.yaml": text})
    assert (r.setup.sharding.value, r.setup.precision.value) == ("zero3", "bf16")


# -- TRL's command line configs (docs/source/clis.md) -------------------------------------------------------------

def test_trl_cli_configs_with_a_dataset_list_are_trls(imported):
    """``trl sft --config sft_config.yaml`` with ``datasets:`` (a dataset mixture) and nothing else."""
    text = ("model_name_or_path: Qwen/Qwen2.5-0.5B\ndatasets:\n  - path: stanfordnlp/imdb\n"
            "  - path: roneneldan/TinyStories\n")
    r = imported({"sft_config.yaml": text})
    assert r.report.format.value == "trl"
    assert r.model.id == "qwen2.5-0.5b"


def test_trl_cli_launch_arguments_give_the_gpus_and_the_accelerate_profile(imported):
    """The TRL CLI passes ``accelerate launch`` arguments written in its config: ``num_processes: 4``, and
    ``accelerate_config``, a path or the name of a profile TRL ships (trl/cli/accelerate_config.py,
    trl/accelerate_configs/zero2.yaml: DeepSpeed ZeRO-2, bf16, 8 processes)."""
    base = "model_name_or_path: Qwen/Qwen2.5-0.5B\ndataset_name: stanfordnlp/imdb\n"
    r = imported({"a.yaml": base + "num_processes: 4\n"})
    assert r.setup.gpus == 4
    assert r.report.read["num_processes"] == 4
    r = imported({"b.yaml": base + "accelerate_config: zero2\n"})
    assert (r.setup.sharding.value, r.setup.gpus, r.setup.precision.value) == ("zero2", 8, "bf16-mixed")
    assert r.report.assumed["sharding"] == "zero2"
    r = imported({"c.yaml": base + "accelerate_config: zero3\nnum_processes: 2\n"})
    assert (r.setup.sharding.value, r.setup.gpus) == ("zero3", 2)
    acc = "distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 2\nfsdp_config:\n  fsdp_version: 2\n"
    r = imported({"d.yaml": base + "accelerate_config: my_fsdp.yaml\n", "my_fsdp.yaml": acc}, given=["d.yaml"])
    assert (r.setup.sharding.value, r.setup.gpus) == ("zero3", 2)
    assert [f.rsplit("/", 1)[-1] for f in r.report.files] == ["d.yaml", "my_fsdp.yaml"]


def test_an_rloo_config_is_not_grpo(imported):
    """TRL 1.x's RLOOConfig shares GRPO's generation keys (``reward_funcs``, ``num_generations``): the recipe's name
    tells them apart (docs/source/clis.md ``# rloo_config.yaml``)."""
    text = "model_name_or_path: Qwen/Qwen2.5-0.5B\nreward_funcs:\n  - accuracy_reward\nnum_generations: 8\n"
    assert imported({"x/y/rloo_config.yaml": text}).alignment is AlignmentMethod.RLOO
    assert imported({"x/y/grpo_config.yaml": text}).alignment is AlignmentMethod.GRPO
    assert imported({"x/y/config.yaml": text}).alignment is AlignmentMethod.GRPO  # (the test's folder says rloo)


# -- DeepSpeed files named but not beside the config -------------------------------------------------------------

def test_shipped_deepspeed_files_the_examples_name(imported):
    """Files the tools ship that their examples name: LLaMA-Factory's ds_z2_autotp_config.json (ZeRO-2 with AutoTP
    2) and ds_z3_fp8_config.json (ZeRO-3, optimizer on the CPU); accelerate's deepspeed_config_templates (fp16,
    named from config_yaml_templates/deepspeed.yaml)."""
    lf = ("model_name_or_path: Qwen/Qwen3-4B\nstage: sft\ndo_train: true\nfinetuning_type: full\nbf16: true\n"
          "deepspeed: examples/deepspeed/{}\n")
    r = imported({"a.yaml": lf.format("ds_z2_autotp_config.json")})
    assert (r.setup.sharding.value, r.setup.parallel.tp, r.setup.gpus) == ("zero2", 2, 2)
    r = imported({"b.yaml": lf.format("ds_z3_fp8_config.json")})
    assert (r.setup.sharding.value, r.setup.offload_optimizer, r.setup.offload_params) == ("zero3", True, False)
    acc = ("distributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n"
           "  deepspeed_config_file: ../deepspeed_config_templates/zero_stage3_offload_config.json\n")
    r = imported({"c.yaml": acc})
    s = r.setup
    assert (s.sharding.value, s.offload_optimizer, s.offload_params, s.precision.value) == ("zero3", True, True,
                                                                                            "fp16-mixed")


@pytest.mark.parametrize("loss", ["chunked_nll", "nll", "dft"])
def test_an_sft_loss_type_is_not_dpo(imported, loss: str):
    """SFTConfig has a ``loss_type`` too (trl/trainer/sft_config.py: nll, dft, chunked_nll): an SFT recipe with one
    (TRL's long-context recipes write ``loss_type: chunked_nll``) is no DPO run."""
    text = f"model_name_or_path: Qwen/Qwen3-8B\nloss_type: {loss}\nmax_length: 8192\nbf16: true\n"
    assert imported({"x/y/config.yaml": text}).alignment is None


def test_dpo_loss_types_still_name_dpo_or_ipo(imported):
    base = "model_name_or_path: Qwen/Qwen3-8B\nmax_length: 1024\n"
    assert imported({"x/y/a.yaml": base + "loss_type: sigmoid\n"}).alignment is AlignmentMethod.DPO
    assert imported({"x/y/b.yaml": base + "loss_type: [sigmoid, bco_pair]\n"}).alignment is AlignmentMethod.DPO
    assert imported({"x/y/c.yaml": base + "loss_type: ipo\n"}).alignment is AlignmentMethod.IPO


@pytest.mark.parametrize("targets", ["[query_key_value, dense, dense_h_to_4h, dense_4h_to_h]",
                                     "[Wqkv, mlp_up, mlp_down]"])
def test_older_architectures_projection_names(imported, targets: str):
    """Axolotl's archived Falcon (GPT-NeoX names) and Replit / MPT examples name their fused projections."""
    r = imported({"a.yaml": AXOLOTL + f"adapter: lora\nlora_target_modules: {targets}\n"})
    assert r.setup.lora.targets.value == "all-linear"


def test_torchtune_replicas_are_reported(imported):
    """torchtune's ``data_parallel_replicate_dim`` (recipes/configs/llama3_3/70B_full_multinode.yaml has 1): above
    one, HSDP, said as accelerate's and Axolotl's replicas are."""
    text = TT.format(builder="llama3_1.llama3_1_8b", folder="/tmp/x") + "data_parallel_replicate_dim: 2\n"
    r = imported({"a.yaml": text})
    assert "2 copies of the model" in _why(r, "data_parallel_replicate_dim")


def test_generic_keys_alone_do_not_make_a_trl_file(imported):
    """torchtune's pre-release recipes (recipes/configs/alpaca_llama2_finetune.yaml, Dec 2023: ``model: llama2_7b``,
    ``batch_size``, ``dtype``, ``output_dir``) share only keys every tool writes with TRL: refused, not read as TRL
    with its defaults."""
    text = "model: llama2_7b\nbatch_size: 2\nlr: 2e-5\nepochs: 3\noptimizer: SGD\ndtype: fp32\noutput_dir: /tmp/x\n"
    with pytest.raises(ConfigRefusedError, match=r"^a\.yaml: not a training config of"):
        imported({"a.yaml": text})


def test_a_16_bit_reupload_is_its_model_but_a_quantized_one_is_not(imported):
    """Axolotl examples/llama-3/qlora-fsdp-70b.yaml loads ``casperhansen/llama-3-70b-fp16``: Llama 3 70B's weights in
    fp16; a bitsandbytes 4-bit re-upload (``...-bnb-nf4-bf16``) still matches nothing."""
    r = imported({"a.yaml": "base_model: casperhansen/llama-3-70b-fp16\n"})
    assert r.model == get_model("llama-3-70b")
    with pytest.raises(ConfigRefusedError, match="is not a model VRAM Lab knows"):
        imported({"b.yaml": "base_model: hugging-quants/Meta-Llama-3.1-405B-BNB-NF4-BF16\n"})
