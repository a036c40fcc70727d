"""The sentences several tools' mappings say, written once (each tool's own sentences stay in its module).

Every one is a constant English template marked with ``QT_TRANSLATE_NOOP`` in the context ``engine`` (the GUI
translates it, ``assets/translations/README.md``); a mapping says it with ``Message.of(TEMPLATE, value=...)``.
The report's own sentences (not used, overridden, already set, choose explicitly) are in
``engine.config_import.report``.
"""

from __future__ import annotations

from engine.translatable import QT_TRANSLATE_NOOP

# -- methods VRAM Lab does not cost ---------------------------------------------------------------------------------
EIGHT_BIT = QT_TRANSLATE_NOOP("engine", "a base loaded in 8 bits is costed with LoRA on it (--method lora-8bit), not "
                                        "trained in full or as QLoRA")
DORA = QT_TRANSLATE_NOOP("engine", "DoRA is costed on LoRA over a 16-bit base (--dora), not on a quantized one")
UNKNOWN_OPTIMIZER = QT_TRANSLATE_NOOP("engine", "{value} is not an optimizer VRAM Lab can cost")
BAD_STAGE = QT_TRANSLATE_NOOP("engine", "{value} is not a ZeRO stage (0, 1, 2 or 3)")
FP8 = QT_TRANSLATE_NOOP("engine", "{value} training is not costed (bf16 and fp16 are)")
PARTIAL = QT_TRANSLATE_NOOP("engine", "only part of the model is trained; the estimate trains all of it, an upper "
                                      "bound")

# -- keys whose effect the estimate does not model -----------------------------------------------------------------
NOT_MODELLED = QT_TRANSLATE_NOOP("engine", "it lowers memory in a way VRAM Lab does not model; the estimate is an "
                                           "upper bound")
PACKING = QT_TRANSLATE_NOOP("engine", "packing fills each sequence to the maximum length, which the estimate "
                                      "costs anyway")

# -- the nearest setup VRAM Lab costs ------------------------------------------------------------------------------
NEAR_ATTENTION = QT_TRANSLATE_NOOP("engine", "{value} keeps no score matrix either; costed as {used}")
NEAR_FUSED_LOSS = QT_TRANSLATE_NOOP(
    "engine", "{value} computes the output layer and the loss chunk by chunk, so no tensor of the vocabulary's size "
              "is whole; costed as fused-linear-ce (Liger's)")
NEAR_OFFLOAD = QT_TRANSLATE_NOOP("engine", "{value} moves saved activations off the GPU; costed as offloading them "
                                           "to host RAM")

# -- files that are not a training run -----------------------------------------------------------------------------
NOT_TRAINING_RUN = QT_TRANSLATE_NOOP("engine", "not a training run (do_train is not set: an inference, evaluation or "
                                               "export config)")
NOT_TRAINING_CONFIG = QT_TRANSLATE_NOOP("engine", "not a training config (no optimizer: an evaluation, generation or "
                                                  "quantization config)")

# -- files named by another --------------------------------------------------------------------------------------
KNOWN_CONTENT = QT_TRANSLATE_NOOP("engine", "{value} was not found beside the config; the content its tool ships "
                                            "is assumed")
