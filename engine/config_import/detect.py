"""Which tool wrote a config, told by its keys (the file's extension only says JSON or YAML).

Each format has keys its files use (:data:`SIGNATURES`), the first few of them decisive (they count three
times: only that tool writes them); the format with the highest score wins, a tie going to the earlier one.
A Hugging Face model ``config.json`` is recognised too, to say where it belongs. A file read as TRL's that holds a
training script's own method keys, or a known script's arguments, is that script's (``script-args``:
``engine.config_import.scripts``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.config_import.report import ConfigRefusedError, Format, Message
from engine.config_import.scripts import is_script
from engine.translatable import QT_TRANSLATE_NOOP

UNKNOWN = QT_TRANSLATE_NOOP("engine", "not a training config of Axolotl, LLaMA-Factory, torchtune, torchtitan, TRL, "
                                      "DeepSpeed or accelerate (none of their keys is in it)")
MODEL_CONFIG = QT_TRANSLATE_NOOP("engine", "a model's config.json, not a training config; give it with --config")

#: format -> (decisive keys, other keys that say so)
SIGNATURES: tuple[tuple[Format, int, tuple[str, ...]], ...] = (
    (Format.ACCELERATE, 2, ("distributed_type", "compute_environment", "num_machines", "machine_rank",
                         "main_training_function", "deepspeed_config", "rdzv_backend", "use_cpu")),
    (Format.DEEPSPEED, 2, ("zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size",
                        "zero_allow_untested_optimizer", "gradient_clipping", "steps_per_print", "wall_clock_breakdown",
                        "zero_force_ds_cpu_optimizer")),
    (Format.AXOLOTL, 5, ("base_model", "sequence_len", "micro_batch_size", "adapter", "lora_target_linear",
                      "num_epochs", "val_set_size", "dataset_prepared_path", "sample_packing", "lora_model_dir",
                      "load_in_4bit", "load_in_8bit", "wandb_project", "special_tokens", "evals_per_epoch",
                      "saves_per_epoch", "lr_scheduler", "optimizer", "pad_to_sequence_len", "rl", "chat_template")),
    (Format.LLAMA_FACTORY, 8, ("stage", "finetuning_type", "template", "cutoff_len", "lora_target", "model_class",
                               "peft_config", "dist_config", "lora_rank", "quantization_bit", "do_train",
                               "preprocessing_num_workers", "overwrite_cache", "plot_loss", "max_samples",
                               "train_dataset", "kernel_config", "sample_backend", "pure_bf16",
                               "disable_gradient_checkpointing")),
    (Format.TRL, 6, ("use_peft", "dataset_mixture", "dataset_mixer", "model_init_kwargs", "accelerate_config",
                  "reward_funcs", "datasets", "model_name_or_path",
                  "per_device_train_batch_size", "lora_r", "lora_target_modules", "dataset_name", "max_seq_length",
                  "max_length", "torch_dtype", "dtype", "optim", "bf16", "output_dir", "per_device_eval_batch_size",
                  "logging_steps", "hub_model_id", "beta", "max_prompt_length",
                  "num_generations", "eval_strategy", "gradient_checkpointing", "learning_rate", "use_vllm",
                  "max_completion_length", "num_ppo_epochs", "desirable_weight", "rloo_k", "use_bnb_nested_quant",
                  "bnb_4bit_quant_type", "model_revision", "dataset_train_split", "lr_scheduler_type",
                  "warmup_ratio", "report_to", "num_train_epochs", "save_strategy")),
)
_MODEL_CONFIG_KEYS = ("architectures", "model_type", "hidden_size", "num_hidden_layers", "vocab_size",
                      "transformers_version", "text_config", "torch_dtype")
MIN_SCORE = 2  # one decisive key, or two others
#: keys only a training-arguments file holds: without one (or a decisive key), keys any tool writes (``output_dir``,
#: ``dtype``, ``learning_rate``...) do not make a TRL file (a pre-release torchtune config has just those)
_TRL_CORE = frozenset({"model_name_or_path", "per_device_train_batch_size", "dataset_name", "max_length",
                       "max_seq_length", "max_completion_length", "gradient_accumulation_steps"})


def _torchtune(data: Mapping[str, Any]) -> bool:
    """torchtune configs instantiate components: ``{"_component_": "torchtune.models..."}`` sections."""
    return any(isinstance(v, Mapping) and str(v.get("_component_", "")).startswith("torchtune.")
               for v in data.values())


def _torchtitan(data: Mapping[str, Any]) -> bool:
    """torchtitan's TOML job configs hold its ``JobConfig`` sections (torchtitan/config/job_config.py): a
    ``[model]`` with a ``flavor``, or two of ``[job]``, ``[training]``, ``[parallelism]``,
    ``[activation_checkpoint]``."""
    model = data.get("model")
    if isinstance(model, Mapping) and "flavor" in model:
        return True
    sections = ("job", "training", "parallelism", "activation_checkpoint")
    return sum(isinstance(data.get(s), Mapping) for s in sections) >= 2


def detect(data: Mapping[str, Any], name: str) -> Format:
    """The tool that wrote ``data`` (see the module docstring); a one-line refusal when none did."""
    if _torchtune(data):
        return Format.TORCHTUNE
    if _torchtitan(data):
        return Format.TORCHTITAN
    scores = [(sum(3 if j < decisive else 1 for j, k in enumerate(keys) if k in data), -i, fmt)
              for i, (fmt, decisive, keys) in enumerate(SIGNATURES)]
    best = max(scores)
    if best[0] < 4 and sum(k in data for k in _MODEL_CONFIG_KEYS) >= 3:
        raise ConfigRefusedError(name, Message.of(MODEL_CONFIG))
    if best[0] < MIN_SCORE or (best[2] is Format.TRL and best[0] < 3 and not _TRL_CORE & data.keys()):
        raise ConfigRefusedError(name, Message.of(UNKNOWN))
    if best[2] is Format.TRL and is_script(data):
        return Format.SCRIPT_ARGS
    return best[2]
