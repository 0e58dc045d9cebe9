"""Typed run configurations of the trainer, read from YAML.

Each command (``vrpcoder train sft|frontier|grpo|merge``) takes one YAML file that maps onto one of
the records below. Following TRL's habit of an ``XConfig`` beside each ``XTrainer``, every field
carries its meaning in its ``description`` (``vrpcoder train show-config`` prints them), and a key
the record does not know is an error rather than silently ignored: a typo such as ``learning_rte``
must stop a multi-GPU run before it starts, not after it has trained with the default.

The shipped files under ``vrpcoder_trainer/configs`` hold the paper's settings (SPEC §2, "Training
defaults") for Qwen3-8B on 3 training GPUs plus 1 vLLM GPU, and tiny CPU settings used by the tests
and the injection-ablation benchmark.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Literal, Self, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from vrpcoder_client.schemas import VerifyOptions
from vrpcoder_client.verdicts import RewardWeights


class ConfigError(ValueError):
    """A configuration file that cannot be used: unreadable, malformed, unknown keys, bad values."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


class ModelSettings(_Strict):
    """Which causal LM to load, and how."""

    name_or_path: str = Field(description="A local model directory or a hub id (e.g. Qwen/Qwen3-8B).")
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = Field(
        default="auto", description="Weight dtype at load time; 'auto' keeps the checkpoint's own."
    )
    attn_implementation: str | None = Field(
        default="sdpa",
        description="transformers attention kernel: 'sdpa' (PyTorch's own, always installed), 'flash_attention_2' "
        "(needs the trainer's [flash-attn] extra), 'eager'; None = transformers' choice.",
    )
    trust_remote_code: bool = Field(default=False, description="Allow model code shipped with the checkpoint.")
    adapters: tuple[str, ...] = Field(
        default=(),
        description="peft LoRA adapter directories merged into the base, in order, before anything else "
        "(GRPO: the SFT adapter, so the KL reference is the SFT policy; merge: SFT then GRPO adapters).",
    )


class LoraSettings(_Strict):
    """The LoRA adapter trained on top of the frozen base (peft ``LoraConfig``)."""

    enabled: bool = Field(
        default=True,
        description="False trains every weight instead (a small model trained from scratch, where a low-rank update "
        "of random weights learns little); the run's adapter/ folder then holds the whole model, and an "
        "'adapters' chain that names it loads those weights in place of the base's.",
    )
    r: int = Field(default=16, gt=0, description="Rank of the low-rank update.")
    alpha: int = Field(default=32, gt=0, description="Scaling numerator: the update is scaled by alpha / r.")
    dropout: float = Field(default=0.1, ge=0.0, lt=1.0, description="Dropout on the adapter's input.")
    target_modules: str | tuple[str, ...] = Field(
        default="all-linear", description="Modules that get an adapter: 'all-linear' or a list of module names."
    )
    modules_to_save: tuple[str, ...] = Field(
        default=(),
        description="Modules trained in full and saved beside the adapter (e.g. 'lm_head' of a tiny random-init "
        "model, whose output layer LoRA alone cannot sharpen); empty for real models.",
    )


class BatchSettings(_Strict):
    """How the effective batch is made: per device x accumulation x processes."""

    per_device_train_batch_size: int = Field(gt=0, description="Sequences (SFT) or completions (GRPO) per device per step.")
    gradient_accumulation_steps: int = Field(default=1, gt=0, description="Micro-batches summed before an optimizer step.")
    num_processes: int = Field(
        default=1, gt=0, description="Training processes (GPUs) the run is launched with; must match the accelerate config."
    )
    effective_batch_size: int = Field(
        gt=0, description="The batch one optimizer step sees; checked equal to the product of the three above."
    )
    group_by_length: bool = Field(
        default=False,
        description="Batch sequences of similar length together (less padding: a CPU pays for every padded token).",
    )

    @model_validator(mode="after")
    def _product_matches(self) -> Self:
        product = self.per_device_train_batch_size * self.gradient_accumulation_steps * self.num_processes
        if product != self.effective_batch_size:
            raise ValueError(
                f"per_device_train_batch_size x gradient_accumulation_steps x num_processes = {product}, "
                f"but effective_batch_size is {self.effective_batch_size}"
            )
        return self


class OptimSettings(_Strict):
    """Optimizer and schedule (transformers ``TrainingArguments`` names)."""

    learning_rate: float = Field(gt=0.0, description="Peak learning rate.")
    lr_scheduler_type: str = Field(default="cosine", description="Schedule after warm-up ('cosine', 'linear', 'constant', ...).")
    warmup_ratio: float = Field(default=0.0, ge=0.0, lt=1.0, description="Share of the steps spent warming up (ignored when warmup_steps > 0).")
    warmup_steps: int = Field(default=0, ge=0, description="Warm-up steps; takes precedence over warmup_ratio when > 0.")
    weight_decay: float = Field(default=0.0, ge=0.0, description="AdamW decoupled weight decay.")
    adam_beta1: float = Field(default=0.9, gt=0.0, lt=1.0, description="AdamW beta1.")
    adam_beta2: float = Field(default=0.999, gt=0.0, lt=1.0, description="AdamW beta2.")
    max_grad_norm: float = Field(default=1.0, gt=0.0, description="Gradient clipping norm.")


class RunSettings(_Strict):
    """Where a run writes, how long it runs, and how it checkpoints."""

    output_dir: str = Field(description="Checkpoints (checkpoint-N/, peft layout), the final adapter (adapter/) and logs.")
    num_train_epochs: float = Field(default=1.0, gt=0.0, description="Passes over the dataset (when max_steps <= 0).")
    max_steps: int = Field(default=-1, description="Stop after this many optimizer steps; <= 0 runs num_train_epochs.")
    logging_steps: int = Field(default=1, gt=0, description="Log metrics every N steps.")
    save_steps: int = Field(default=50, gt=0, description="Write a checkpoint every N steps.")
    save_total_limit: int | None = Field(default=3, description="Keep at most this many checkpoints (None: all).")
    seed: int = Field(default=0, description="Seed of data order, dropout and sampling.")
    bf16: bool = Field(default=False, description="bfloat16 mixed precision (GPUs).")
    gradient_checkpointing: bool = Field(default=False, description="Recompute activations to save memory.")
    deepspeed: str | None = Field(
        default=None, description="A DeepSpeed JSON config (path, or 'packaged:<name>' for a shipped one)."
    )
    report_to: tuple[str, ...] = Field(default=(), description="transformers loggers ('tensorboard', 'wandb'); none by default.")
    use_cpu: bool = Field(default=False, description="Train on the CPU even where a GPU is visible (tests, the CPU demo).")


class VerifierSettings(_Strict):
    """How rollouts reach the verifier service."""

    url: str | None = Field(default=None, description="Base URL of the verifier API; None reads $VRPCODER_VERIFIER_URL.")
    token_env: str = Field(default="VRPCODER_VERIFIER_TOKEN", description="Environment variable holding the API token.")
    timeout: float = Field(default=600.0, gt=0.0, description="HTTP timeout of one request, seconds.")
    retry_seconds: float = Field(default=60.0, gt=0.0, description="Seconds a transient fault (the API or Redis restarting) is retried before the completions concerned get None.")
    retry_attempts: int | None = Field(default=None, gt=0, description="At most this many attempts per request as well (None: as many as retry_seconds allows; tests set a few to fail fast).")
    poll_timeout: float = Field(default=900.0, gt=0.0, description="Seconds to wait for a batch's verdicts before they count as pending (None).")
    time_limit: float | None = Field(default=None, gt=0.0, description="Gurobi time limit per solve; None = the service default.")


class RewardSettings(RewardWeights):
    """The run's reward: the client's ``RewardWeights`` (one definition of the weights and of the gates
    on DIFF's credit, the paper's 0.2 / 0.5 / 0.3 by default) and DIFF's tolerance."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True, use_attribute_docstrings=True)

    diff_tolerance: float = Field(default=1e-3, ge=0.0, description="Absolute objective tolerance of DIFF.")

    @property
    def weights(self) -> RewardWeights:
        return RewardWeights(**self.model_dump(exclude={"diff_tolerance"}))

    def options(self, time_limit: float | None) -> VerifyOptions:
        """What every verify request of the run carries."""
        return VerifyOptions(weights=self.weights, diff_tolerance=self.diff_tolerance, time_limit=time_limit)


class DatasetSettings(_Strict):
    """A dataset written by ``vrpcoder synth run`` (its contract: docs/synth.md, "Output: the dataset contract")."""

    path: str = Field(description="The dataset folder (README.md with configs sft / grpo / reserved, samples/).")
    config: str = Field(description="Which of its configs to read: 'sft', 'grpo', 'reserved' (or a frontier set's folder).")
    limit: int | None = Field(default=None, gt=0, description="Use only the first N records (smoke runs).")


class SFTRunConfig(_Strict):
    """``vrpcoder train sft``: LoRA SFT with TRL's SFTTrainer, loss on the assistant reply only."""

    kind: Literal["sft"] = Field(description="Which command this file is for.")
    model: ModelSettings
    lora: LoraSettings = LoraSettings()
    dataset: DatasetSettings
    batch: BatchSettings
    optim: OptimSettings
    run: RunSettings
    max_length: int = Field(default=8192, gt=0, description="Tokens per training sequence (prompt + reply); longer ones are truncated.")


class GenerationSettings(_Strict):
    """How rollouts are sampled."""

    temperature: float = Field(default=0.4, gt=0.0, description="Sampling temperature.")
    top_p: float = Field(default=0.95, gt=0.0, le=1.0, description="Nucleus sampling mass.")
    max_completion_length: int = Field(default=3072, gt=0, description="Tokens per completion at most.")


class VLLMSettings(_Strict):
    """Rollouts with vLLM: TRL's 'server' mode (a separate GPU runs ``trl vllm-serve``) or 'colocate' mode
    (vLLM inside every training process, sharing its GPU)."""

    enabled: bool = Field(default=False, description="Generate with vLLM; False uses transformers' own generate on the training GPUs.")
    mode: Literal["server", "colocate"] = Field(
        default="server",
        description="'server': a vLLM process on its own GPU (trl vllm-serve); 'colocate': vLLM in each training process.",
    )
    host: str = Field(default="0.0.0.0", description="Host of the vLLM server (server mode).")
    port: int = Field(default=8000, gt=0, description="Port of the vLLM server (server mode).")
    base_url: str | None = Field(default=None, description="Full base URL of the server; overrides host and port (e.g. a k8s Service).")
    server_timeout: float = Field(default=600.0, gt=0.0, description="Seconds to wait for the server at start-up.")
    gpu_memory_utilization: float = Field(
        default=0.3, gt=0.0, le=1.0,
        description="Colocate: the share of each GPU's memory vLLM may take (the rest is for training).",
    )
    tensor_parallel_size: int = Field(
        default=1, gt=0, description="Colocate: GPUs one vLLM engine spans (must divide the number of training processes)."
    )
    enable_sleep_mode: bool = Field(
        default=False, description="Colocate: vLLM frees its weights and KV cache during the optimisation step (more room to train)."
    )
    max_model_length: int | None = Field(
        default=None, gt=0, description="Colocate: vLLM's context length (prompt + completion); None = the model's own."
    )


class GRPORunConfig(_Strict):
    """``vrpcoder train grpo``: GRPO with TRL's GRPOTrainer, the verifier service as reward."""

    kind: Literal["grpo"] = Field(description="Which command this file is for.")
    model: ModelSettings
    lora: LoraSettings = LoraSettings()
    dataset: DatasetSettings
    batch: BatchSettings
    optim: OptimSettings
    run: RunSettings
    generation: GenerationSettings = GenerationSettings()
    vllm: VLLMSettings = VLLMSettings()
    verifier: VerifierSettings = VerifierSettings()
    reward: RewardSettings = RewardSettings()
    num_generations: int = Field(default=8, gt=1, description="G: completions per prompt, one group; advantages are relative within it.")
    beta: float = Field(default=0.02, ge=0.0, description="KL coefficient against the reference (the base with the adapter off).")
    loss_type: str = Field(default="grpo", description="TRL's GRPO loss ('grpo', 'dr_grpo', 'dapo', 'bnpo').")
    scale_rewards: Literal["group", "batch", "none"] = Field(default="group", description="Divide advantages by the group's reward std ('group').")
    log_completions: bool = Field(default=False, description="Print sampled completions with their rewards at logging steps.")
    chat_template_kwargs: dict[str, Any] | None = Field(
        default=None,
        description="Extra arguments of the chat template when prompts are rendered, e.g. {enable_thinking: false} "
        "for Qwen3 (otherwise its completion budget goes to thinking text).",
    )

    @model_validator(mode="after")
    def _colocate_settings_only_in_colocate_mode(self) -> Self:
        defaults = VLLMSettings()
        colocate_only = ("gpu_memory_utilization", "tensor_parallel_size", "enable_sleep_mode", "max_model_length")
        if self.vllm.mode == "server":
            changed = [k for k in colocate_only if getattr(self.vllm, k) != getattr(defaults, k)]
            if changed:
                raise ValueError(f"vllm.{', vllm.'.join(changed)}: colocate-mode settings, but vllm.mode is 'server'")
        elif self.batch.num_processes % self.vllm.tensor_parallel_size:
            raise ValueError(
                f"vllm.tensor_parallel_size {self.vllm.tensor_parallel_size} does not divide batch.num_processes "
                f"{self.batch.num_processes}"
            )
        return self

    @model_validator(mode="after")
    def _groups_fit_the_batch(self) -> Self:
        if self.batch.effective_batch_size % self.num_generations:
            raise ValueError(
                f"effective_batch_size {self.batch.effective_batch_size} is not a multiple of num_generations {self.num_generations}"
            )
        return self


class EndpointSettings(_Strict):
    """An OpenAI-compatible chat-completions endpoint (a vLLM server, a hosted API)."""

    base_url: str = Field(description="e.g. http://vllm:8000/v1")
    model: str = Field(description="The model name the server knows (vLLM: the served model or a LoRA name).")
    api_key_env: str | None = Field(default=None, description="Environment variable holding the bearer key, if any.")
    timeout: float = Field(default=600.0, gt=0.0, description="HTTP timeout per request, seconds.")
    concurrency: int = Field(default=8, gt=0, description="Prompts in flight at once.")
    chat_template_kwargs: dict[str, Any] | None = Field(
        default=None,
        description="Sent as the request's chat_template_kwargs (vLLM), e.g. {enable_thinking: false} for Qwen3.",
    )


class FrontierConfig(_Strict):
    """``vrpcoder train frontier``: keep the prompts the policy sometimes gets right and sometimes not."""

    kind: Literal["frontier"] = Field(description="Which command this file is for.")
    dataset: DatasetSettings
    output_dir: str = Field(description="Writes frontier/train.jsonl (kept prompts), rollouts.jsonl and report.json / report.md.")
    rollouts: int = Field(default=6, gt=1, description="M: rollouts per prompt.")
    generation: GenerationSettings = GenerationSettings()
    endpoint: EndpointSettings | None = Field(default=None, description="Sample from this server; exactly one of endpoint / model.")
    model: ModelSettings | None = Field(default=None, description="Sample locally with transformers; exactly one of endpoint / model.")
    verifier: VerifierSettings = VerifierSettings()
    reward: RewardSettings = RewardSettings()
    seed: int = Field(default=0, description="Seed of local sampling.")
    use_cpu: bool = Field(default=False, description="Local sampling on the CPU even where a GPU is visible.")

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        if (self.endpoint is None) == (self.model is None):
            raise ValueError("give exactly one of 'endpoint' (OpenAI-compatible server) or 'model' (local generation)")
        return self


class MergeConfig(_Strict):
    """``vrpcoder train merge``: fold a LoRA adapter into its base, for a vLLM server to load."""

    kind: Literal["merge"] = Field(description="Which command this file is for.")
    model: ModelSettings = Field(description="The base model; model.adapters are the adapters to merge (at least one).")
    output_dir: str = Field(description="Where the merged model and its tokenizer are saved (safetensors).")
    dtype: Literal["float32", "bfloat16", "float16"] = Field(default="bfloat16", description="dtype of the saved weights.")

    @model_validator(mode="after")
    def _has_adapter(self) -> Self:
        if not self.model.adapters:
            raise ValueError("model.adapters must name at least one LoRA adapter to merge")
        return self


AnyConfig = SFTRunConfig | GRPORunConfig | FrontierConfig | MergeConfig
ConfigT = TypeVar("ConfigT", SFTRunConfig, GRPORunConfig, FrontierConfig, MergeConfig)
_BY_KIND: dict[str, type[BaseModel]] = {"sft": SFTRunConfig, "grpo": GRPORunConfig, "frontier": FrontierConfig, "merge": MergeConfig}
PACKAGED_PREFIX = "packaged:"


def packaged_path(name: str) -> Path:
    """A file shipped in ``vrpcoder_trainer/configs`` (YAML run configs, DeepSpeed and accelerate configs)."""
    path = Path(str(resources.files("vrpcoder_trainer").joinpath("configs", name)))
    if not path.is_file():
        shipped = sorted(p.name for p in path.parent.iterdir())
        raise ConfigError(f"no packaged config {name!r}; shipped: {', '.join(shipped)}")
    return path


def resolve_path(value: str) -> Path:
    """``packaged:<name>`` names a shipped file; anything else is a path."""
    return packaged_path(value[len(PACKAGED_PREFIX):]) if value.startswith(PACKAGED_PREFIX) else Path(value)


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of settings")
    return data


def _explain(path: Path | str, exc: ValidationError) -> ConfigError:
    lines = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "(top level)"
        message = "unknown key (not a setting of this record)" if error["type"] == "extra_forbidden" else error["msg"]
        lines.append(f"  {where}: {message}")
    return ConfigError(f"{path}: invalid configuration\n" + "\n".join(lines))


def parse_config(data: dict[str, Any], source: Path | str = "<config>", expected: type[ConfigT] | None = None) -> AnyConfig:
    """Validate a mapping into the record its ``kind`` names (and that ``expected`` wants, if given)."""
    kind = data.get("kind")
    record = _BY_KIND.get(str(kind))
    if record is None:
        raise ConfigError(f"{source}: 'kind' must be one of {', '.join(_BY_KIND)} (got {kind!r})")
    if expected is not None and record is not expected:
        wanted = next(name for name, known in _BY_KIND.items() if known is expected)
        raise ConfigError(f"{source}: this is a '{kind}' config, but the command needs kind '{wanted}'")
    try:
        return record.model_validate(data)  # type: ignore[return-value]
    except ValidationError as exc:
        raise _explain(source, exc) from exc


def load_config(path: Path | str, expected: type[ConfigT] | None = None, overrides: dict[str, Any] | None = None) -> Any:
    """Read a YAML run config (``packaged:<name>`` for a shipped one), apply dotted ``overrides``, validate."""
    source = resolve_path(str(path))
    data = _read_yaml(source)
    for dotted, value in (overrides or {}).items():
        _set_dotted(data, dotted, value)
    return parse_config(data, source, expected)


def _set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    node = data
    for key in keys[:-1]:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise ConfigError(f"override {dotted}: {key} is not a section")
        node = child
    node[keys[-1]] = value


def parse_override(text: str) -> tuple[str, Any]:
    """``a.b=value`` from the command line; the value is read as YAML (numbers, booleans, lists)."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise ConfigError(f"override {text!r}: write it as section.key=value")
    return key.strip(), yaml.safe_load(raw)


def describe(record: type[BaseModel], prefix: str = "") -> list[tuple[str, str, str]]:
    """(dotted key, default, meaning) of every setting, nested records expanded: the config's manual."""
    rows: list[tuple[str, str, str]] = []
    for name, info in record.model_fields.items():
        key = f"{prefix}{name}"
        annotation = info.annotation
        nested = [a for a in getattr(annotation, "__args__", (annotation,)) if isinstance(a, type) and issubclass(a, BaseModel)]
        if nested:
            rows.append((key, "", info.description or (nested[0].__doc__ or "").strip().splitlines()[0]))
            rows += describe(nested[0], key + ".")
            continue
        default = "(required)" if info.is_required() else repr(info.default)
        rows.append((key, default, info.description or ""))
    return rows
