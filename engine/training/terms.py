"""The terms of a training step, one function each: its bytes at every moment, its formula and its source.

Each function takes the step's context (``engine.training.context.StepContext``) and the moments to count at,
and returns a :class:`TermRule`: one :class:`~engine.training.moments.Cost` per moment (affine in b*s and
b*s^2), with the formula in words for this model and setup, the source of that formula and a detail line. The
estimate evaluates the rules of :data:`TRAINING_TERMS`, in order, at the coarse moments; the timeline at the fine
ones; a sweep at many sequence lengths at once. A new term is one more function here, decorated with
:func:`training_term`, and its definition in ``engine.terms``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.params import layer_linears
from engine.specs import Checkpointing, Method, OptimizerImpl
from engine.terms import TermName
from engine.training import fsdp2
from engine.training.context import StepContext, saved_cost
from engine.training.moments import ZERO, Cost, Moment, MomentKind
from engine.training.optimizers import SOURCES as OPTIMIZER_SOURCES
from engine.training.partial import STEP_SOURCE as PARTIAL_SOURCE
from engine.training.states import step_temporary, trainable_matrices


@dataclass(frozen=True, slots=True)
class TermRule:
    """One term over a step: its cost at each moment asked for, and the words that explain it."""

    name: str
    costs: tuple[Cost, ...]
    formula: str
    source: str
    detail: str = ""


#: a term's function; None when the term does not exist in this setup (a layout's buffers without a layout)
Rule = Callable[[StepContext, Sequence[Moment]], TermRule | None]

#: The training terms, in the order they stack (``engine.terms`` defines their names and labels).
TRAINING_TERMS: list[Rule] = []


def training_term(rule: Rule) -> Rule:
    """Register a term's function in :data:`TRAINING_TERMS` (module order is stacking order)."""
    TRAINING_TERMS.append(rule)
    return rule


def _divided(text: str, divisor: int, what: str = "") -> str:
    return text + (f" / N{what}" if divisor > 1 else "")


#: the moments at which earlier micro-batches' activations (pipeline parallelism) are still held
_IN_FLIGHT = frozenset({MomentKind.FORWARD_LAYER, MomentKind.FORWARD_END, MomentKind.BACKWARD_START,
                        MomentKind.BACKWARD_LAYER, MomentKind.BACKWARD_END})


def _policy(c: StepContext) -> str:
    """The stack's own rules that change this step's dtypes (``engine.training.policy``), as a source suffix."""
    sources = c.plan.policy.sources
    return "".join(f"; {c.s.stack.value}: {src}" for src in sources)


def _others(c: StepContext) -> float:
    """How many other micro-batches' activations a pipeline stage holds besides the one at hand."""
    return c.in_flight - 1.0


@training_term
def weights(c: StepContext, at: Sequence[Moment]) -> TermRule:
    """Parameters x bytes per weight as stored, per GPU (ZeRO-3 divides by N), plus autocast's 16-bit copies.

    16 bytes per parameter of model states for mixed-precision AdamW, of which 2 are the weights: Rajbhandari et
    al. 2020 (ZeRO, arXiv:1910.02054) s3.1. QLoRA's 4-bit NF4 base with double quantization (0.127 bits of
    constants per weight): Dettmers et al. 2023 (arXiv:2305.14314) s3. Autocast casts each fp32 weight to 16 bits
    for its matmul and keeps the cast for the whole autocast region (the forward); a matmul saves it for its
    backward unless the layer is checkpointed (PyTorch AMP docs, "Autocast op reference").
    """
    st, last = c.st, len(c.layers) - 1
    copies = 0 if c.checkpointed or c.offloaded else c.copies_through(last)
    by_kind = {
        MomentKind.FORWARD_END: c.copies_through(last) + c.ac.head_copies,
        MomentKind.BACKWARD_START: copies + c.ac.head_copies,
    }
    others = _others(c) * copies  # earlier micro-batches' saved copies (pipeline parallelism)

    def kept(layer: int) -> int:
        """Copies saved for backward by layers 0..layer (offloaded: only this layer's, brought back)."""
        if c.checkpointed:
            return 0
        return c.layers[layer].weight_copies if c.offloaded else c.copies_through(layer)

    def at_moment(mo: Moment) -> Cost:
        held = st.weights + (others if mo.kind in _IN_FLIGHT else 0.0)
        if mo.kind is MomentKind.FORWARD_LAYER:
            return Cost(held + c.copies_through(mo.layer or 0))  # autocast's cache holds them all
        if mo.kind is MomentKind.BACKWARD_LAYER:
            layer = mo.layer or 0
            recomputed = c.layers[layer].weight_copies if c.checkpointed else 0
            return Cost(held + kept(layer) + recomputed)
        return Cost(held + by_kind.get(mo.kind, 0))

    return TermRule(TermName.WEIGHTS, tuple(at_moment(mo) for mo in at),
                    _divided("params x bytes per weight", st.divisor_weights, " (ZeRO-3)"),
                    "Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) s3.1; Dettmers et al. 2023 (QLoRA, "
                    "arXiv:2305.14314) s3 for 4-bit NF4 with double quantization" + _policy(c), st.weight_detail)


@training_term
def gradients(c: StepContext, at: Sequence[Moment]) -> TermRule:
    """Trainable parameters x bytes per gradient (ZeRO-2/3 divide by N), made layer by layer during backward.

    Backward makes the head's gradients first, then each layer's from the top down; the optimizer step of a
    mixed-precision run consumes them upcast to fp32 (ZeRO s3.1). With gradient accumulation, or several
    pipeline micro-batches, every micro-batch after the first runs with the whole gradient held (and added to).
    LoRA trains only the adapters (Hu et al. 2021, arXiv:2106.09685, s4.1); ZeRO-2 partitions gradients
    (Rajbhandari et al. 2020, s5).
    """
    st = c.st
    whole = float(st.gradients)
    # Megatron-LM's main_grad buffers exist from the start (engine.training.stacks.grads_preallocated); under
    # FSDP2 with pipelining the gradients are accumulated unsharded (the sharding buffers) and scattered at the end
    pipelined_fsdp = c.units is not None and not c.units.fsdp.sync_each_backward
    accumulating = (c.s.grad_accum > 1 or c.s.parallel.micro_batches > 1) and not pipelined_fsdp
    held = accumulating or c.plan.grads_preallocated

    def at_moment(mo: Moment) -> Cost:
        if c.s.optimizer_in_backward:  # each gradient lives only until its parameter's step, in its hook
            return Cost(_one_gradient(c, mo))
        if mo.kind is MomentKind.OPTIMIZER_STEP:
            return Cost(float(st.step_gradients))
        if held or mo.kind is MomentKind.BACKWARD_END:
            return Cost(whole)
        if pipelined_fsdp:
            return ZERO
        if mo.kind is MomentKind.BACKWARD_LAYER:
            return Cost(float(c.grads_above(mo.layer or 0)))
        return ZERO

    detail = f"{st.counts.trainable:,} trainable" + (" (LoRA adapters, fp32)" if c.s.method is not Method.FULL else "")
    source = "Rajbhandari et al. 2020 (ZeRO) s3.1 and s5; Hu et al. 2021 (LoRA, arXiv:2106.09685) s4.1"
    if c.s.optimizer_in_backward:
        detail += "; one parameter's gradient at a time (the optimizer steps in backward)"
        source += "; torchtune 0.6.1 training/memory.py register_optim_in_bwd_hooks"
    if c.plan.grads_preallocated:
        detail += "; Megatron-LM's fp32 main_grad buffers, allocated with the model"
        source += ("; Megatron-LM megatron/training/arguments.py (bf16: accumulate_allreduce_grads_in_fp32) and "
                   "core/distributed/distributed_data_parallel.py (grad_dtype fp32), commit 0e9fcc1d")
    return TermRule(TermName.GRADIENTS, tuple(at_moment(mo) for mo in at),
                    _divided("trainable params x bytes per gradient", st.divisor_grads), source, detail)


@training_term
def optimizer_states(c: StepContext, at: Sequence[Moment]) -> TermRule:
    """Trainable parameters x (fp32 master copy + optimizer states) bytes (ZeRO-1/2/3 divide by N).

    AdamW keeps m and v (Loshchilov & Hutter 2019), created at the first ``step()``: step 1's forward and
    backward run without them. 8-bit states: Dettmers et al. 2022 (arXiv:2110.02861) s2; Adafactor's factored
    second moment: Shazeer & Stern 2018 (arXiv:1804.04235) s3; partitioning: Rajbhandari et al. 2020 s5.
    """
    states = Cost(float(c.st.optimizer_states))
    costs = tuple(states if mo.step == 2 or mo.kind is MomentKind.OPTIMIZER_STEP else ZERO for mo in at)
    if c.s.optimizer_in_backward:  # step 1's states appear parameter by parameter as backward reaches them
        costs = tuple(Cost(c.st.optimizer_states * _stepped_share(c, mo)) for mo in at)
    source = ("Loshchilov & Hutter 2019 (AdamW); Rajbhandari et al. 2020 (ZeRO) s3.1; Dettmers et al. 2022 "
              "(8-bit optimizers, arXiv:2110.02861); Shazeer & Stern 2018 (Adafactor)")
    if c.s.optimizer in OPTIMIZER_SOURCES:  # issue 27's: each trainable tensor's states as its library keeps them
        source = OPTIMIZER_SOURCES[c.s.optimizer] + "; Rajbhandari et al. 2020 (ZeRO) s3.1"
    return TermRule(TermName.OPTIMIZER_STATES, costs,
                    _divided("trainable params x (master copy + states) bytes", c.st.divisor_states), source)


def _largest_layer_gradient(c: StepContext, layer: int) -> int:
    """One parameter's gradient, the largest of decoder layer ``layer`` (of this stage), on this GPU."""
    kind = c.plan.kinds[c.stage_layers[0] + layer]
    largest = max((x.params for x in layer_linears(kind, c.m.hidden_size)), default=0)
    return -(-largest * c.plan.trained.grad // c.st.divisor_grads)


def _one_gradient(c: StepContext, mo: Moment) -> float:
    """With the optimizer stepping in backward (torchtune ``optimizer_in_bwd``: training/memory.py
    ``register_optim_in_bwd_hooks``@0.6.1, one optimizer per parameter stepped and zeroed in its
    post-accumulate-grad hook) one gradient lives at a time: a layer's largest, the output layer's (counted at the
    top layer's backward, where everything below is still saved: an upper bound of the moment it lives), the
    embedding's at the end."""
    table = c.m.vocab_size * c.m.hidden_size * c.plan.trained.grad // c.st.divisor_grads
    if mo.kind is MomentKind.BACKWARD_LAYER:
        layer = mo.layer or 0
        top = layer == len(c.layers) - 1 and c.grads.head
        return float(max(_largest_layer_gradient(c, layer), table if top else 0))
    return float(table) if mo.kind is MomentKind.BACKWARD_END else 0.0


def _stepped_share(c: StepContext, mo: Moment) -> float:
    """The share of the optimizer states that exists at ``mo`` when they are made in step 1's backward, as each
    parameter's hook first steps (in the order backward makes the gradients)."""
    if mo.step > 1 or mo.kind in (MomentKind.BACKWARD_END, MomentKind.OPTIMIZER_STEP):
        return 1.0
    if mo.kind is not MomentKind.BACKWARD_LAYER:
        return 0.0
    total = c.grads.head + c.grad_sums[-1]
    return c.grads_above(mo.layer or 0) / total if total else 0.0


@training_term
def activations(c: StepContext, at: Sequence[Moment]) -> TermRule:
    """What the layers save for their backward (``engine.training.activations``), plus the head's input.

    Korthikanti et al. 2022 (arXiv:2205.05198) s4.1's method, applied op by op to the Hugging Face layers; with
    full checkpointing each layer keeps only its input and recomputes the rest in its backward (Chen et al.
    2016, arXiv:1604.06174); eager attention keeps the s x s scores that FlashAttention never writes (Dao et al.
    2022, arXiv:2205.14135, s3.1).
    """
    last = len(c.layers) - 1
    everything = (Cost(0.0, c.ac.head_input) if c.offloaded
                  else c.kept_through(last) + Cost(0.0, c.ac.head_saved))
    whole = ZERO if c.offloaded else c.kept_through(last)  # offloaded: earlier micro-batches' are on the host
    others = Cost(0.0, whole.per_token * _others(c), whole.per_bs2 * _others(c))

    def kept(layer: int) -> Cost:
        """Layers 0..layer's saved activations on the GPU (offloaded: only this layer's, in flight)."""
        return c.kept_by(layer) if c.offloaded else c.kept_through(layer)

    def own(mo: Moment) -> Cost:
        if mo.kind in (MomentKind.FORWARD_END, MomentKind.BACKWARD_START):
            return everything
        if mo.kind is MomentKind.FORWARD_LAYER:
            return kept(mo.layer or 0)
        if mo.kind is MomentKind.BACKWARD_LAYER:
            layer = mo.layer or 0
            lc = c.layers[layer]
            recomputed = saved_cost(lc) if c.checkpointed else ZERO
            return kept(layer) + recomputed + Cost(0.0, lc.recomputed, lc.recomputed_bs2)
        return ZERO

    def at_moment(mo: Moment) -> Cost:
        return own(mo) + others if mo.kind in _IN_FLIGHT and c.in_flight > 1 else own(mo)

    source = ("Korthikanti et al. 2022 (arXiv:2205.05198) s4.1 method, applied to Hugging Face layers; "
              "Dao et al. 2022 (FlashAttention, arXiv:2205.14135); Chen et al. 2016 (checkpointing, "
              "arXiv:1604.06174)")
    if c.s.checkpointing is Checkpointing.SELECTIVE:
        source += "; Korthikanti et al. 2022 s5 (selective recomputation of the attention core)"
    elif c.s.checkpointing is Checkpointing.OP_SELECTIVE:
        source += ("; torchtitan 0.3.0 distributed/activation_checkpoint.py SelectiveAC (torch.utils.checkpoint "
                   "create_selective_checkpoint_contexts, every second mm recomputed)")
    if c.s.checkpoint_every > 1:
        source += "; torchtune 0.6.1 training/activations.py checkpoint_wrapper (every k-th layer)"
    if c.offloaded:
        source += "; torchtune training/_activation_offload.py (OffloadActivations)"
    source += _policy(c)
    return TermRule(TermName.ACTIVATIONS, tuple(at_moment(mo) for mo in at), _activations_formula(c), source)


def _activations_formula(c: StepContext) -> str:
    last = len(c.layers) - 1
    if c.checkpointed:
        formula = "layers x b x s x hidden (checkpointed inputs) + one layer recomputed"
    elif c.s.checkpoint_every > 1:
        formula = (f"every {c.s.checkpoint_every}th layer: b x s x hidden (its input), the others: b x s x (per-token "
                   "bytes saved per layer) + one layer recomputed")
    elif c.s.checkpointing is Checkpointing.SELECTIVE:
        formula = "layers x b x s x (per-token bytes saved per layer, attention core recomputed)"
    elif c.s.checkpointing is Checkpointing.OP_SELECTIVE:
        formula = ("layers x b x s x (the input, every other matmul's output and the attention kernel's: "
                   "torchtitan's per-operator policy) + one layer recomputed")
    else:
        formula = "layers x b x s x (per-token bytes saved per layer)"
    if c.offloaded:
        formula = "one layer's share of [" + formula + "] (the rest offloaded to host RAM)"
    if c.in_flight > 1:
        formula += f", x {c.in_flight:g} micro-batches in flight"
    if c.layers[last].saved_bs2:
        per_score = round(c.layers[last].saved_bs2 / c.m.num_heads)  # fp32 softmax + its cast (+ tanh cap)
        formula += f" + layers x b x heads x s^2 x {per_score} (eager scores)"
    return formula


def offloaded(c: StepContext) -> Cost:
    """Bytes in host RAM at the end of the forward with ``activation_offload``: every tensor the layers (and the
    final norm) save for backward, once per save (a tensor saved by two ops is copied twice), and autocast's
    saved weight copies; not what the output layer saves, nor the loss's (torchtune's OffloadActivations wraps
    the output layer in a no-op, and its recipes compute the loss outside), except with TRL's chunked loss, which
    SFTTrainer runs inside the context: non-reentrant checkpointing saves each chunk's input through the hooks
    (``_NoopSaveInputs``), so the reordered hidden states, their labels and ``order`` move too (traced:
    ``lc-*_chunked_offload``).
    Source: torchtune ``training/_activation_offload.py`` (TRL ``models/activation_offloading.py``), traced in
    calibration/ (``lc-*_offload``). PyTorch's own ``torch.autograd.graph.save_on_cpu`` moves every saved tensor,
    parameters included: with it host RAM also takes a copy of each weight a matmul saves, every step."""
    if not c.offloaded:
        return ZERO
    last = len(c.layers) - 1
    copies = 0 if c.checkpointed else c.copies_through(last)
    again = sum(lc.checkpoint_again if c.checkpointed else lc.saved_again for lc in c.layers)
    loss = c.ac.loss.offloaded  # TRL's chunked loss saves its chunks' inputs through the hooks too
    return c.kept_through(last) + Cost(float(copies), c.ac.head_saved - c.ac.head_input + again + loss)


@training_term
def logits(c: StepContext, at: Sequence[Moment]) -> TermRule:
    """The loss over the vocabulary at the end of the forward and the start of the backward, as the setup
    computes it (``engine.training.loss``). Standard: ``b x s x V`` logits upcast to fp32, their log-softmax kept
    for backward, and at the start of backward three fp32 ``b x s x V`` tensors (the log-probabilities,
    nll_loss's gradient, log-softmax's gradient): 12 bytes per token and vocabulary entry (Hugging Face
    transformers ``ForCausalLMLoss``, traced in calibration/README.md); chunked (TRL chunked_nll),
    chunked-output (torchtune CEWithChunkedOutputLoss) and fused-linear-ce (Liger) hold less."""
    loss = c.ac.loss
    by_kind = {MomentKind.FORWARD_END: Cost(float(loss.forward_const), loss.forward),
               MomentKind.BACKWARD_START: Cost(float(loss.backward_const), loss.backward)}
    return TermRule(TermName.LOGITS, tuple(by_kind.get(mo.kind, ZERO) for mo in at), loss.formula, loss.source)


@training_term
def sharding_buffers(c: StepContext, at: Sequence[Moment]) -> TermRule:
    """Data parallelism's communication buckets and ZeRO-3 / FSDP's gathered layers, by phase
    (``engine.training.sharding``: PyTorch DDP and FSDP docs, DeepSpeed's ZeRO bucket sizes); torchtitan's FSDP2
    units moment by moment (``engine.training.fsdp2``)."""
    if c.units is not None:
        return TermRule(TermName.SHARDING_BUFFERS, tuple(Cost(c.units.at(mo)) for mo in at),
                        "gathered bf16 units (the layer and the one prefetched, the output layer's from its forward "
                        "to its backward) and the fp32 reduce-scatter of their gradients", fsdp2.SOURCE)
    return TermRule(TermName.SHARDING_BUFFERS, tuple(Cost(c.buffers.get(mo.phase, 0.0)) for mo in at),
                    "gathered layers and communication buckets",
                    "PyTorch DDP docs (gradient_as_bucket_view); DeepSpeed ZeRO config (bucket sizes); PyTorch FSDP "
                    "(Zhao et al. 2023, arXiv:2304.11277) s3.3")


@training_term
def temporaries(c: StepContext, at: Sequence[Moment]) -> TermRule:
    """What a layer's backward makes on top of what it frees: the gradients of its activations in flight (same
    method as the activations), QLoRA's 4-bit weight dequantized to 16 bits for its matmul, one linear at a time
    (bitsandbytes ``MatMul4Bit``; Dettmers et al. 2023 s3); at the end, the gradient reaching the embedding and,
    when the embedding is tied to the output layer, the two contributions to that weight's gradient (the output
    layer's, the embedding's) alive while they are added: ``2 x V x h`` in the gradient's dtype (traced:
    ``mm`` / ``_to_copy`` and ``embedding_dense_backward``, each ``[V, h]``, at the end of bwd2)."""

    def at_moment(mo: Moment) -> Cost:
        if mo.kind is MomentKind.FORWARD_LAYER:  # DoRA's weight norm (engine.training.saved.layer)
            lc = c.layers[mo.layer or 0]
            return Cost(float(lc.forward_fixed), lc.forward_transient)
        if mo.kind is MomentKind.BACKWARD_LAYER:
            lc = c.layers[mo.layer or 0]
            if c.checkpointed:  # the recomputed forward's temporaries, then the backward's
                return Cost(float(max(lc.dequantized, lc.forward_fixed) + in_backward),
                            max(lc.transient, lc.forward_transient), lc.transient_bs2)
            return Cost(float(lc.dequantized + in_backward), lc.transient, lc.transient_bs2)
        if mo.kind is MomentKind.BACKWARD_END:
            return Cost(float(2 * c.grads.tied), c.ac.end_transient)
        if mo.kind is MomentKind.OPTIMIZER_STEP:
            return Cost(float(c.st.step_temporaries + step))  # issue 27's optimizers' or torch AdamW's
        return ZERO

    qlora = c.s.method is Method.QLORA
    step = step_temporary(c.m, c.s, c.st.counts.trainable, c.plan.trained, c.st.divisor_states)
    in_backward = 0
    if c.s.optimizer_in_backward:  # the steps run per parameter, in backward: the largest one's temporaries
        largest = max(rows * cols for rows, cols, _ in trainable_matrices(c.m, c.s))
        in_backward = step_temporary(c.m, c.s, largest, c.plan.trained, c.st.divisor_states)
        step = 0
    impl = c.s.adamw_impl
    formula = "gradients of the layer in backward" + (" + its largest linear dequantized to 16 bits" if qlora else "")
    source = ("gradients in flight during one layer's backward (same method as activations); QLoRA: "
              "bitsandbytes dequantizes each 4-bit weight for its matmul (Dettmers et al. 2023, s3)")
    if impl is OptimizerImpl.FOREACH:
        formula += "; in the step, foreach AdamW's sqrt of every state tensor (trainable x state bytes)"
        source += "; torch/optim/adam.py@2.13 _multi_tensor_adam line 762 (torch._foreach_sqrt)"
    elif impl is OptimizerImpl.FORLOOP:
        formula += "; in the step, for-loop AdamW's two temporaries of the largest parameter"
        source += "; torch/optim/adam.py@2.13 _single_tensor_adam (denom = exp_avg_sq.sqrt() / ...)"
    if c.st.step_temporaries:
        formula += "; at the optimizer step, what its step() allocates"
        source += "; the optimizer step: " + (OPTIMIZER_SOURCES.get(c.s.optimizer) or PARTIAL_SOURCE)
    if c.s.dora:
        formula += "; DoRA's weight norm in each forward (and recompute) and its fp32 products' gradients"
        source += "; PEFT 0.21.2 peft/tuners/lora/dora.py (DoraLinearLayer.get_lora_weight, get_weight_norm, forward)"
    return TermRule(TermName.TEMPORARIES, tuple(at_moment(mo) for mo in at), formula, source)


@training_term
def parallel_buffers(c: StepContext, at: Sequence[Moment]) -> TermRule | None:
    """What a tensor / pipeline / context / expert parallel layout keeps in flight for its communication while
    forward and backward run (``engine.training.stage.parallel_buffers``: the formula and its sources); the term
    exists only with such a layout."""
    if c.parallel_buffers is None:
        return None
    live = c.parallel_buffers
    return TermRule(TermName.PARALLEL_BUFFERS, tuple(ZERO if mo.kind is MomentKind.OPTIMIZER_STEP else live
                                                     for mo in at), c.parallel_formula,
                    "Megatron-LM p2p_communication.py; Korthikanti et al. 2022 (arXiv:2205.05198) s4.2.2; Liu et al. "
                    "2023 (Ring Attention, arXiv:2310.01889) s3; Megatron-Core MoEAlltoAllTokenDispatcher")
