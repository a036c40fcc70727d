"""What the MLP saves for backward, per token: dense SwiGLU / GELU, and mixtures of experts
(``engine.training.saved``)."""

from __future__ import annotations

from engine.params import Linear, mlp_linears
from engine.specs import ExpertLora, ExpertStorage, LayerSpec, Method, MlpKind
from engine.training.precision import FP32, HALF
from engine.training.saved.inputs import Ctx, linear_inputs

#: tensors of the MLP's width kept per token: SwiGLU keeps gate (in the gate_up output), up, act(gate) and their
#: product is down's input (counted there); GPT-2's tanh GELU four; GPT-OSS's clamped SwiGLU the gate_up output (2),
#: the clamped gate, its sigmoid, their product and up + 1 (modeling_gpt_oss GptOssExperts._apply_gate); Nemotron-H's
#: ``relu(x) ** 2`` one, relu's output (which the square keeps as its input; the square is down's input); the exact
#: GELU one, its input (GPT-NeoX's ``nn.functional.gelu``)
INNER = {MlpKind.GATED: 3, MlpKind.PLAIN: 4, MlpKind.GATED_CLAMPED: 6, MlpKind.RELU2: 1, MlpKind.GELU: 1}


def is_down(x: Linear) -> bool:
    return x.role.endswith("down")


def merged_experts(ctx: Ctx, layer: LayerSpec, adapted: set[str]) -> tuple[int, int]:
    """(saved, transient) bytes of PEFT's LoRA on fused experts: ``ParamWrapper`` folds ``W + s B A`` into a new
    weight with one ``baddbmm`` per forward (peft/tuners/lora/layer.py ``_LoraFactorsProxy``), in the base weight's
    dtype; the grouped matmuls keep them for backward. There the down projection's merged gradient is made first,
    while both merged weights live; the gate_up one after the down weight is freed: on top of the saved merged
    weights, max(down, gate_up - down) more."""
    p = layer.mlp
    if ctx.full or p is None or p.moe is None or p.moe.storage is not ExpertStorage.FUSED:
        return 0, 0
    hits = [x for x in mlp_linears(p, ctx.m.hidden_size) if x.role.startswith("experts_") and x.role in adapted]
    if not hits:
        return 0, 0
    w = ctx.dtypes.weight if ctx.s.method is Method.LORA else HALF
    size = {x.role: x.count * x.n_in * x.n_out * w for x in hits}
    down = size.get("experts_down", 0)
    return sum(size.values()), max(down, max(size.values()) - down if len(size) > 1 else down)


def mlp(ctx: Ctx, layer: LayerSpec, adapted: set[str]) -> tuple[float, float]:
    """(saved, transient) per token of the MLP: SwiGLU keeps gate, act(gate), up and their product;
    GPT-2's tanh GELU keeps four tensors of the hidden width, in its linears' output dtype (``Ctx.o``).

    MoE (transformers' grouped-matmul experts, integrations/moe.py): each token visits k experts; the routing
    weights keep each expert's output (k x hidden) and the router's fp32 logits and scores (2 x experts); when the
    experts' weights take gradients (full fine-tuning, or PEFT's ParamWrapper on them) the grouped matmuls also keep
    their inputs, the gathered tokens (k x hidden) and the down projection's input (k x expert width).
    """
    c, p, h = ctx.c, layer.mlp, ctx.m.hidden_size
    if p is None:
        return 0.0, 0.0
    e = p.moe
    k = (e.num_experts if e.dense_dispatch else e.experts_per_token) if e is not None else 0
    routed_width = k * e.expert_intermediate_size if e is not None else 0
    width = p.intermediate_size + (e.shared_width if e is not None else 0) + routed_width
    # the routed experts' tensors are in the compute dtype; the dense (and shared) MLP's are its linears' outputs,
    # fp32 where 4-bit layers cast back to an fp32 input (engine.training.policy)
    dense = width - routed_width
    inner = c * INNER[p.kind] * routed_width + ctx.o * INNER[MlpKind.GATED if p.kind is MlpKind.GATED_CLAMPED
                                                            else p.kind] * dense
    grads = 3 * (c * routed_width + ctx.o * dense)  # the backward's gradients of the MLP's inner tensors
    linears = mlp_linears(p, h)
    readers = [x for x in linears if x.n_in == h and not is_down(x)]
    routing = 2 * FP32 * e.num_experts if e is not None else 0.0
    if ctx.full:
        down_in = linear_inputs(ctx, [Linear("down", width, h)], c, adapted)
        mlp_in = linear_inputs(ctx, [Linear(x.role, h, 1) for x in readers[:2]], ctx.r, adapted)
        return inner + down_in + mlp_in + c * k * 2 * h + routing, grads
    wrapped = e is not None and e.lora is ExpertLora.PARAMETERS  # router and experts are ParamWrappers
    experts_train = any(x.role in adapted for x in linears if x.role.startswith("experts_"))
    modules = [x for x in readers if not x.role.startswith("experts_") and not (wrapped and x.role == "router")]
    mlp_in = linear_inputs(ctx, [Linear(x.role, h, 1) for x in modules], ctx.r, adapted)
    mlp_in += c * h if wrapped and "router" in adapted else 0  # the wrapped router keeps its input itself
    downs = [x for x in linears if is_down(x) and not x.role.startswith("experts_")]
    down_in = sum(linear_inputs(ctx, [Linear(x.role, x.n_in, h)], c, adapted) for x in downs)
    routed = c * k * h * (2 if experts_train else 1) + (c * routed_width if experts_train else 0)
    return inner + down_in + mlp_in + routed + routing, grads
