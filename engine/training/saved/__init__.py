"""What one decoder layer saves for its backward, per token, split by what it costs.

Method: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
(arXiv:2205.05198, section 4.1) count, op by op, the tensors each layer keeps for its backward pass; they find
``s*b*h*(34 + 5*a*s/h)`` bytes for a GPT-3 layer in fp16 with dropout. We apply the same method to the layers as
Hugging Face ``transformers`` writes them (RMSNorm upcast to fp32, SwiGLU MLP, SDPA or eager attention, no
dropout), under PyTorch autograd's rule that an op saves an input only when the gradient of another input needs
it (a frozen linear keeps no copy of its input), autocast's casts (PyTorch AMP docs) and PEFT's LoRA forward (the
adapter input is cast to fp32 then back to the autocast dtype: one copy per adapted linear). The result is checked
against traced PyTorch training steps (``calibration/``) and real H200 runs (``docs/accuracy.md``).

* ``engine.training.saved.inputs``: what the linears and norms keep of their inputs (the dtypes of a setup:
  :class:`~engine.training.saved.inputs.Ctx`);
* ``engine.training.saved.attention``: the attention core (SDPA / FlashAttention or eager, selective recompute);
* ``engine.training.saved.mlp``: the MLP, dense or mixture-of-experts;
* ``engine.training.saved.layer``: one layer's sum, :class:`~engine.training.saved.layer.LayerCoeffs`.

``engine.training.activations`` assembles the whole model (every layer, the head and the loss).

Everything is bytes per token (multiply by b*s) except ``*_bs2`` (multiply by b*s^2: eager attention's score
matrices, the quadratic term FlashAttention removes: Dao et al. 2022, arXiv:2205.14135, section 3.1).
"""
