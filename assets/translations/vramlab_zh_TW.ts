<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_TW">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About VRAM Lab</source>
        <translation>關於 VRAM Lab</translation>
    </message>
    <message>
        <source>Does it fit in this GPU, and why? GPU memory in LLM fine-tuning, explained.</source>
        <translation>放得進這張 GPU 嗎？為什麼？把 LLM 微調時的 GPU 記憶體講清楚。</translation>
    </message>
    <message>
        <source>VRAM Lab is MIT-licensed. It bundles:</source>
        <translation>VRAM Lab 以 MIT 授權釋出，內含：</translation>
    </message>
    <message>
        <source>Qt and PySide6 are used under the LGPLv3; their source is at qt.io.</source>
        <translation>Qt 與 PySide6 依 LGPLv3 使用，原始碼請見 qt.io。</translation>
    </message>
</context>
<context>
    <name>AlignmentControls</name>
    <message>
        <source>no sharding</source>
        <translation>不分片</translation>
    </message>
    <message>
        <source>LoRA: the reference is the base with adapters off (no copy)</source>
        <translation>LoRA：參考模型用關掉 adapter 的基底模型（不另存一份）</translation>
    </message>
    <message>
        <source>DPO: reference log-probs precomputed</source>
        <translation>DPO：事先算好參考模型的對數機率</translation>
    </message>
    <message>
        <source>GRPO: KL coefficient 0, no reference (TRL&apos;s default)</source>
        <translation>GRPO：KL 係數為 0，不載入參考模型（TRL 預設）</translation>
    </message>
    <message>
        <source>GRPO: a reward model instead of a rule</source>
        <translation>GRPO：用獎勵模型取代規則</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 數量</translation>
    </message>
    <message>
        <source>Sharding</source>
        <translation>分片</translation>
    </message>
</context>
<context>
    <name>AlignmentPage</name>
    <message>
        <source>▶ Play one step</source>
        <translation>▶ 播放一步</translation>
    </message>
    <message>
        <source>Per GPU: solid, what stays all step (weights, optimizer states, the rollout engine&apos;s share); light, the working set that sets the peak; grey, the allocator&apos;s reserve and the CUDA context. Click a bar to draw its stage.</source>
        <translation>每張 GPU：實心是整步都留著的（權重、優化器狀態、生成引擎（rollout）的份額）；淺色是決定尖峰的工作集；灰色是配置器保留量與 CUDA 執行環境。點一條長條，畫出它的階段。</translation>
    </message>
    <message>
        <source>{stage} · {n} model(s)</source>
        <translation>{stage} · {n} 個模型</translation>
    </message>
    <message>
        <source>■ Stop</source>
        <translation>■ 停止</translation>
    </message>
    <message>
        <source>Supervised fine-tuning: prompt / answer pairs teach the model a format and a task. One model trains.</source>
        <translation>監督式微調：用 prompt／回答配對，教模型格式和任務。只有一個模型在訓練。</translation>
    </message>
    <message>
        <source>Direct preference optimisation: the loss comes straight from (better, worse) answer pairs, and a frozen reference sits inside it.</source>
        <translation>直接偏好最佳化：損失直接從「較好／較差」的回答配對算出，損失裡還有一個凍結的參考模型。</translation>
    </message>
    <message>
        <source>The classic RLHF recipe: the policy and a critic (value model) train, the reference and the reward model stay frozen, and the policy samples its own answers.</source>
        <translation>RLHF 經典做法：策略模型和價值模型要訓練，參考模型與獎勵模型凍結，策略模型自己取樣回答。</translation>
    </message>
    <message>
        <source>DeepSeekMath&apos;s and R1&apos;s choice: no critic. Each prompt gets a group of answers; their rewards, normalised within the group, are the advantages.</source>
        <translation>DeepSeekMath 與 R1 採用：沒有價值模型。每個 prompt 取樣一組回答，獎勵在組內標準化後就是優勢值。</translation>
    </message>
    <message>
        <source>prompt / answer pairs</source>
        <translation>prompt／回答配對</translation>
    </message>
    <message>
        <source>chosen / rejected pairs</source>
        <translation>較佳／較差回答配對</translation>
    </message>
    <message>
        <source>prompts</source>
        <translation>prompt</translation>
    </message>
    <message>
        <source>cross-entropy</source>
        <translation>交叉熵</translation>
    </message>
    <message>
        <source>−log σ(β · log-ratio margin)</source>
        <translation>−log σ(β · 對數機率比的差距)</translation>
    </message>
    <message>
        <source>GAE advantages, clipped ratio</source>
        <translation>GAE 優勢值，裁切比率</translation>
    </message>
    <message>
        <source>(reward − group mean) / group std</source>
        <translation>（獎勵 − 組內平均）／組內標準差</translation>
    </message>
    <message>
        <source>After SFT, preference learning differs not only in its algorithm but in how many models sit on the GPU at once, a practical reason DPO and GRPO caught on.</source>
        <translation>SFT 之後的偏好學習，差別不只在演算法，也在 GPU 上同時要放幾份模型。這也是 DPO 和 GRPO 會流行的實際原因。</translation>
    </message>
    <message>
        <source>Completions not sampled: the stage counts the setup&apos;s batch and sequence length.</source>
        <translation>不取樣回答：這個階段按設定的批次與序列長度計算。</translation>
    </message>
    <message>
        <source>This step trains on {train} sequences of {p} + {c} tokens and samples {gen} completions at once.</source>
        <translation>這一步訓練 {train} 條 {p} + {c} 個 token 的序列，一次取樣 {gen} 個回答。</translation>
    </message>
    <message>
        <source>Logits for the last {n} positions only (TRL&apos;s logits_to_keep).</source>
        <translation>只為最後 {n} 個位置產生輸出分數（TRL 的 logits_to_keep）。</translation>
    </message>
    <message>
        <source>The vLLM server needs {bytes} on GPUs of its own.</source>
        <translation>vLLM 伺服器在自己的 GPU 上需要 {bytes}。</translation>
    </message>
</context>
<context>
    <name>AttentionPage</name>
    <message>
        <source>Attention, one step at a time</source>
        <translation>注意力，一步一步算</translation>
    </message>
    <message>
        <source>One layer, one head, a short sentence, computed live. Beside each step, the same tensor in a real model: watch where the memory explodes.</source>
        <translation>一層、一個 head、一句短句，即時算出來。每一步旁邊換算成真實模型裡同一個張量的大小：看記憶體在哪一步爆掉。</translation>
    </message>
    <message>
        <source>Not changed: {reason}.</source>
        <translation>沒有更改：{reason}。</translation>
    </message>
</context>
<context>
    <name>AttentionSizePanel</name>
    <message>
        <source>hidden</source>
        <translation>隱藏維度</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>head 數</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 個 token</translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation>張量</translation>
    </message>
    <message>
        <source>Per head</source>
        <translation>每個 head</translation>
    </message>
    <message>
        <source>Per layer</source>
        <translation>每層</translation>
    </message>
    <message>
        <source>All layers</source>
        <translation>所有層</translation>
    </message>
    <message>
        <source>Bytes per layer against tokens (log–log)</source>
        <translation>每層位元組數對 token 數（雙對數）</translation>
    </message>
    <message>
        <source>&lt;b&gt;{model}&lt;/b&gt; at {n} tokens, batch {b}, {dtype}</source>
        <translation>&lt;b&gt;{model}&lt;/b&gt;，{n} 個 token，batch {b}，{dtype}</translation>
    </message>
    <message>
        <source>shared by all heads</source>
        <translation>所有 head 共用</translation>
    </message>
    <message>
        <source>{bytes} over {n} layers</source>
        <translation>{n} 層共 {bytes}</translation>
    </message>
    <message>
        <source>&lt;b&gt;FlashAttention&lt;/b&gt; computes the same output in tiles and never writes the s × s matrix ({scores} per layer) to memory. It keeps the output and one fp32 statistic per row per head: &lt;b&gt;{kept}&lt;/b&gt; per layer.</source>
        <translation>&lt;b&gt;FlashAttention&lt;/b&gt; 分塊算出相同的輸出，從不把 s × s 矩陣（每層 {scores}）寫進記憶體。它只留下輸出，以及每個 head 每列一個 fp32 統計量：每層 &lt;b&gt;{kept}&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>scores, P (s × s)</source>
        <translation>分數、P（s × s）</translation>
    </message>
    <message>
        <source>FlashAttention keeps</source>
        <translation>FlashAttention 保留</translation>
    </message>
</context>
<context>
    <name>AttentionStage</name>
    <message>
        <source>S masked</source>
        <translation>S 遮罩後</translation>
    </message>
</context>
<context>
    <name>ConfigImport</name>
    <message>
        <source>{value} was not found beside the config; select it too when you import, to use it</source>
        <translation>在設定檔旁找不到 {value}；要使用它，請在匯入時一併選取</translation>
    </message>
    <message>
        <source>a model&apos;s config.json, not a training config; drop it on the window or use the Memory page&apos;s Import config.json to import the model</source>
        <translation>這是模型的 config.json，不是訓練設定檔；要匯入模型，請把它拖放到視窗上，或使用「記憶體」頁的「匯入 config.json」</translation>
    </message>
    <message>
        <source>a training script&apos;s own arguments</source>
        <translation>訓練腳本自己的參數</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Alignment method</source>
        <translation>對齊方法</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>優化器</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>序列長度</translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation>梯度累加</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>梯度檢查點</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 數量</translation>
    </message>
    <message>
        <source>Sharding</source>
        <translation>分片</translation>
    </message>
    <message>
        <source>Offload the optimizer</source>
        <translation>卸載優化器</translation>
    </message>
    <message>
        <source>Offload the parameters</source>
        <translation>卸載參數</translation>
    </message>
    <message>
        <source>LoRA rank</source>
        <translation>LoRA rank</translation>
    </message>
    <message>
        <source>LoRA alpha</source>
        <translation>LoRA alpha</translation>
    </message>
    <message>
        <source>LoRA dropout</source>
        <translation>LoRA dropout</translation>
    </message>
    <message>
        <source>LoRA targets</source>
        <translation>LoRA 套用層</translation>
    </message>
    <message>
        <source>4-bit data type</source>
        <translation>4-bit 資料型別</translation>
    </message>
    <message>
        <source>Double quantization</source>
        <translation>雙重量化</translation>
    </message>
    <message>
        <source>Tensor parallel</source>
        <translation>張量平行</translation>
    </message>
    <message>
        <source>Pipeline parallel</source>
        <translation>管線平行</translation>
    </message>
    <message>
        <source>Context parallel</source>
        <translation>上下文平行</translation>
    </message>
    <message>
        <source>Expert parallel</source>
        <translation>專家平行</translation>
    </message>
    <message>
        <source>Sequence parallel</source>
        <translation>序列平行</translation>
    </message>
    <message>
        <source>Pipeline micro-batches</source>
        <translation>管線微批次數</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>損失</translation>
    </message>
    <message>
        <source>Loss chunks</source>
        <translation>損失分塊數</translation>
    </message>
    <message>
        <source>Offload activations</source>
        <translation>卸載激活值</translation>
    </message>
    <message>
        <source>Checkpointed layers (one in k)</source>
        <translation>做梯度檢查點的層（每 k 層一層）</translation>
    </message>
    <message>
        <source>Optimizer step in backward</source>
        <translation>在反向傳播中執行優化器步驟</translation>
    </message>
    <message>
        <source>torch.compile</source>
        <translation>torch.compile</translation>
    </message>
    <message>
        <source>Training stack</source>
        <translation>訓練框架</translation>
    </message>
    <message>
        <source>AdamW implementation</source>
        <translation>AdamW 的實作</translation>
    </message>
    <message>
        <source>Allocator settings (PYTORCH_CUDA_ALLOC_CONF)</source>
        <translation>配置器設定（PYTORCH_CUDA_ALLOC_CONF）</translation>
    </message>
    <message>
        <source>DoRA</source>
        <translation>DoRA</translation>
    </message>
    <message>
        <source>Modules trained in full</source>
        <translation>完整訓練的模組</translation>
    </message>
    <message>
        <source>Trained layers</source>
        <translation>訓練的層</translation>
    </message>
    <message>
        <source>OFT block</source>
        <translation>OFT 區塊</translation>
    </message>
    <message>
        <source>Projection rank</source>
        <translation>投影 rank</translation>
    </message>
    <message>
        <source>Where the optimizer is offloaded</source>
        <translation>優化器卸載到哪裡</translation>
    </message>
    <message>
        <source>Where the parameters are offloaded</source>
        <translation>參數卸載到哪裡</translation>
    </message>
    <message>
        <source>CP exchange</source>
        <translation>CP 交換方式</translation>
    </message>
    <message>
        <source>FSDP version</source>
        <translation>FSDP 版本</translation>
    </message>
    <message>
        <source>reward modelling</source>
        <translation>獎勵模型訓練</translation>
    </message>
    <message>
        <source>The file trains with {method}: the Alignment page shows its stage.</source>
        <translation>這個檔案用 {method} 訓練：「對齊」頁顯示它的階段。</translation>
    </message>
    <message>
        <source>The file trains with IPO, DPO with another loss: the Alignment page shows the DPO stage.</source>
        <translation>這個檔案用 IPO 訓練，也就是換了損失函數的 DPO：「對齊」頁顯示 DPO 階段。</translation>
    </message>
    <message>
        <source>The file trains with KTO, which holds DPO&apos;s models (the policy and a frozen reference): the Alignment page shows the DPO stage. Its second sequence per example keeps activations for the backward pass, where KTO&apos;s (the mismatched completion of its KL estimate) runs without gradients, so the activations shown are an upper bound.</source>
        <translation>這個檔案用 KTO 訓練，它放在記憶體裡的模型和 DPO 相同（策略模型與凍結的參考模型）：「對齊」頁顯示 DPO 階段。DPO 每個範例的第二條序列會為反向傳播保留激活值，而 KTO 的第二條（估計 KL 用的錯配回答）不計算梯度，所以顯示的激活值是上限。</translation>
    </message>
    <message>
        <source>The file trains with RLOO, which holds GRPO&apos;s models (the policy, a frozen reference, the reward) and samples several completions per prompt: the Alignment page shows the GRPO stage.</source>
        <translation>這個檔案用 RLOO 訓練，它放的模型和 GRPO 相同（策略模型、凍結的參考模型、獎勵），每個提示也取樣多個回答：「對齊」頁顯示 GRPO 階段。</translation>
    </message>
    <message>
        <source>The file trains with {method}, for which the Alignment page has no stage: the Memory page shows the training at the file&apos;s micro-batch, one sequence per example, where {method} runs two (the chosen and the rejected answer).</source>
        <translation>這個檔案用 {method} 訓練，「對齊」頁沒有它的階段：「記憶體」頁以檔案中的微批次顯示訓練，每個範例算一條序列，而 {method} 每個範例跑兩條（被選中與被拒絕的回答）。</translation>
    </message>
    <message>
        <source>The file&apos;s model, {value}, is not one VRAM Lab knows: the current model, {model}, is kept. Pick another on the Memory page, or drop the model&apos;s config.json on the window.</source>
        <translation>檔案中的模型 {value} 不是 VRAM Lab 認得的模型：保留目前的模型 {model}。請在「記憶體」頁另選一個，或把該模型的 config.json 拖放到視窗上。</translation>
    </message>
    <message>
        <source>{files} ({tool}): {read} read, {ignored} ignored, {assumed} assumed.</source>
        <translation>{files}（{tool}）：讀取 {read} 項、忽略 {ignored} 項、假設 {assumed} 項。</translation>
    </message>
    <message>
        <source>The {page} page shows the imported setup; Edit ▸ Undo ({keys}) brings back the scenario you had.</source>
        <translation>「{page}」頁顯示匯入的設定；編輯 ▸ 復原（{keys}）可以回到原本的情境。</translation>
    </message>
    <message>
        <source>Read ({n})</source>
        <translation>讀取（{n}）</translation>
    </message>
    <message>
        <source>Ignored ({n})</source>
        <translation>忽略（{n}）</translation>
    </message>
    <message>
        <source>Assumed ({n})</source>
        <translation>假設（{n}）</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>鍵</translation>
    </message>
    <message>
        <source>Value in the file</source>
        <translation>檔案中的值</translation>
    </message>
    <message>
        <source>Why it is not used as written</source>
        <translation>為何沒有照檔案使用</translation>
    </message>
    <message>
        <source>Setting</source>
        <translation>設定</translation>
    </message>
    <message>
        <source>Value used</source>
        <translation>採用的值</translation>
    </message>
    <message>
        <source>Nothing.</source>
        <translation>無。</translation>
    </message>
</context>
<context>
    <name>ConfigImports</name>
    <message>
        <source>Import training config</source>
        <translation>匯入訓練設定檔</translation>
    </message>
    <message>
        <source>Training configs (*.yaml *.yml *.json *.toml);;All files (*)</source>
        <translation>訓練設定檔 (*.yaml *.yml *.json *.toml);;所有檔案 (*)</translation>
    </message>
    <message>
        <source>Could not import the training config</source>
        <translation>無法匯入訓練設定檔</translation>
    </message>
    <message>
        <source>Nothing was changed.</source>
        <translation>目前的設定沒有任何變更。</translation>
    </message>
</context>
<context>
    <name>ExportActions</name>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 圖片 (*.png)</translation>
    </message>
    <message>
        <source>SVG drawing (*.svg)</source>
        <translation>SVG 向量圖 (*.svg)</translation>
    </message>
    <message>
        <source>Nothing to export</source>
        <translation>沒有可匯出的內容</translation>
    </message>
    <message>
        <source>CSV table (*.csv)</source>
        <translation>CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Markdown table (*.md)</source>
        <translation>Markdown 表格 (*.md)</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>匯出</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>匯出失敗</translation>
    </message>
</context>
<context>
    <name>FileDrop</name>
    <message>
        <source>{name}: a PyTorch memory snapshot; this version of VRAM Lab has no Timeline page to open it (python -m engine snapshot reads it).</source>
        <translation>{name}：PyTorch 記憶體快照；這個版本的 VRAM Lab 沒有可以開啟它的「時間軸」頁（可用 python -m engine snapshot 讀取）。</translation>
    </message>
    <message>
        <source>VRAM Lab opens training configs, model config.json files and folders, scenarios (*.vramlab.json) and PyTorch memory snapshots; this is none of them: {why}</source>
        <translation>VRAM Lab 能開啟訓練設定檔、模型的 config.json 檔案與資料夾、情境檔（*.vramlab.json）與 PyTorch 記憶體快照；這個檔案都不是：{why}</translation>
    </message>
    <message>
        <source>Cannot open this file</source>
        <translation>無法開啟這個檔案</translation>
    </message>
</context>
<context>
    <name>GpuChoices</name>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 數量</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>每步</translation>
    </message>
    <message>
        <source>Hours</source>
        <translation>時數</translation>
    </message>
    <message>
        <source>Price</source>
        <translation>單價</translation>
    </message>
    <message>
        <source>how many GPUs of this type (ZeRO-3 beyond one)</source>
        <translation>這種 GPU 的張數（超過一張用 ZeRO-3）</translation>
    </message>
    <message>
        <source>the run&apos;s tokens per second over all its GPUs</source>
        <translation>整個訓練在所有 GPU 上每秒處理的 token 數</translation>
    </message>
    <message>
        <source>seconds of one optimizer step</source>
        <translation>一次優化器更新步驟的秒數</translation>
    </message>
    <message>
        <source>the run&apos;s hours: the dataset&apos;s tokens times the epochs at that speed</source>
        <translation>訓練時數：以這個速度跑完資料集 token 數乘以輪數</translation>
    </message>
    <message>
        <source>hours times GPUs times your price</source>
        <translation>時數乘以 GPU 張數再乘以你的價格</translation>
    </message>
    <message>
        <source>your price per GPU-hour for this type (double-click to type it)</source>
        <translation>你這種 GPU 的每 GPU 小時價格（雙擊輸入）</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>成本</translation>
    </message>
</context>
<context>
    <name>GpuChoicesSection</name>
    <message>
        <source>Fastest run first</source>
        <translation>最快的先列</translation>
    </message>
    <message>
        <source>Cheapest run first</source>
        <translation>最便宜的先列</translation>
    </message>
    <message>
        <source> epochs</source>
        <translation> 輪</translation>
    </message>
    <message>
        <source>at most </source>
        <translation>最多 </translation>
    </message>
    <message>
        <source> GPUs</source>
        <translation> 張 GPU</translation>
    </message>
    <message>
        <source>Every GPU type the run fits on, the fewest of each (1, 2, 4 or whole nodes of 8, ZeRO-3 beyond one) and twice and four times as many, with the run&apos;s speed and hours: the dataset&apos;s tokens (Host RAM tab) times the epochs. Type your price per GPU-hour on a row to see what the run costs there; no price is shipped.</source>
        <translation>這個訓練放得下的每一種 GPU，各列出最少需要幾張（1、2、4 張或整台 8 張的節點，超過一張用 ZeRO-3），以及兩倍、四倍的張數，附上速度與訓練時數：資料集的 token 數（「主機記憶體」分頁）乘以輪數。在某一列輸入你的每 GPU 小時價格，就能看到在那裡訓練的成本；軟體不附任何價格。</translation>
    </message>
    <message>
        <source>Set the dataset&apos;s tokens on the Host RAM tab to see the run&apos;s hours and cost.</source>
        <translation>在「主機記憶體」分頁設定資料集的 token 數，就能看到訓練時數與成本。</translation>
    </message>
    <message>
        <source>The run fits on no GPU type within the limit: allow more GPUs, or try LoRA, QLoRA or a shorter sequence.</source>
        <translation>在這個上限內沒有任何 GPU 型號放得下：請允許更多 GPU，或改用 LoRA、QLoRA 或較短的序列。</translation>
    </message>
    <message>
        <source>{s:.3g} s</source>
        <translation>{s:.3g} 秒</translation>
    </message>
    <message>
        <source>double-click to type your price per GPU-hour</source>
        <translation>雙擊輸入你的每 GPU 小時價格</translation>
    </message>
</context>
<context>
    <name>HeatLegend</name>
    <message>
        <source>positive</source>
        <translation>正值</translation>
    </message>
    <message>
        <source>negative</source>
        <translation>負值</translation>
    </message>
    <message>
        <source>masked (−∞)</source>
        <translation>遮罩（−∞）</translation>
    </message>
    <message>
        <source>Rows are queries, columns are keys.</source>
        <translation>列是 query，欄是 key。</translation>
    </message>
</context>
<context>
    <name>HostSection</name>
    <message>
        <source>The training data</source>
        <translation>訓練資料</translation>
    </message>
    <message>
        <source> M tokens</source>
        <translation> M token</translation>
    </message>
    <message>
        <source>none given</source>
        <translation>未指定</translation>
    </message>
    <message>
        <source>Tokens in the tokenized training set, in millions</source>
        <translation>已 tokenize 的訓練集有多少 token（百萬）</translation>
    </message>
    <message>
        <source>Python lists (parsed JSON)</source>
        <translation>Python list（解析後的 JSON）</translation>
    </message>
    <message>
        <source>NumPy array (int32)</source>
        <translation>NumPy 陣列（int32）</translation>
    </message>
    <message>
        <source>Arrow file, memory-mapped</source>
        <translation>Arrow 檔，記憶體映射</translation>
    </message>
    <message>
        <source>Streamed from Parquet</source>
        <translation>從 Parquet 串流讀取</translation>
    </message>
    <message>
        <source>Load it iteratively (streaming)</source>
        <translation>逐批載入（串流）</translation>
    </message>
    <message>
        <source>Read the data as it goes, a shuffle buffer per reader, instead of holding all of it</source>
        <translation>邊讀邊用，每個讀取者只留一個洗牌緩衝區，而不是整份資料都放在記憶體</translation>
    </message>
    <message>
        <source>Arrow / Parquet storage</source>
        <translation>Arrow / Parquet 儲存</translation>
    </message>
    <message>
        <source>A binary columnar file, memory-mapped: its pages are shared by every process and worker of the node, not copied</source>
        <translation>二進位欄式檔案，以記憶體映射開啟：同一節點的所有行程與工作行程共用它的分頁，不會複製</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>資料集</translation>
    </message>
    <message>
        <source>Held as</source>
        <translation>存放方式</translation>
    </message>
    <message>
        <source>Processes and nodes</source>
        <translation>行程與節點</translation>
    </message>
    <message>
        <source>Every process loads the whole checkpoint</source>
        <translation>每個行程都載入完整權重檔</translation>
    </message>
    <message>
        <source>Rank 0 loads it, then broadcasts</source>
        <translation>Rank 0 載入後再廣播</translation>
    </message>
    <message>
        <source>Each process loads its shard (meta device)</source>
        <translation>每個行程只載入自己的分片（meta device）</translation>
    </message>
    <message>
        <source>DataLoader workers</source>
        <translation>DataLoader 工作行程</translation>
    </message>
    <message>
        <source>Worker processes prepare the next batches while the GPU computes</source>
        <translation>工作行程在 GPU 計算時準備下一批資料</translation>
    </message>
    <message>
        <source>Pinned memory (pin_memory=True)</source>
        <translation>鎖頁記憶體（pin_memory=True）</translation>
    </message>
    <message>
        <source>not given</source>
        <translation>未指定</translation>
    </message>
    <message>
        <source>Model loading</source>
        <translation>模型載入</translation>
    </message>
    <message>
        <source>Prefetch per worker</source>
        <translation>每個工作行程預取</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>節點數</translation>
    </message>
    <message>
        <source>RAM per node</source>
        <translation>每節點 RAM</translation>
    </message>
    <message>
        <source>Busiest process</source>
        <translation>最忙的行程</translation>
    </message>
    <message>
        <source>Whole node</source>
        <translation>整個節點</translation>
    </message>
    <message>
        <source>loading the checkpoint</source>
        <translation>載入權重檔</translation>
    </message>
    <message>
        <source>training</source>
        <translation>訓練</translation>
    </message>
    <message>
        <source>&lt;b&gt;{node}&lt;/b&gt; of host RAM per node, {process} for the busiest of its {n} processes; the peak comes while {phase}.</source>
        <translation>每個節點需要 &lt;b&gt;{node}&lt;/b&gt; 主機記憶體，其 {n} 個行程中最忙的一個佔 {process}；尖峰出現在{phase}時。</translation>
    </message>
    <message>
        <source>NVMe offload writes {disk} per node to disk; host RAM holds its pinned buffers.</source>
        <translation>NVMe 卸載每個節點寫 {disk} 到磁碟；主機記憶體只放它的鎖頁緩衝區。</translation>
    </message>
    <message>
        <source>Give the RAM per node for a verdict.</source>
        <translation>填入每節點 RAM 即可判斷放不放得下。</translation>
    </message>
    <message>
        <source>Does not fit in {ram}: short by {x}.</source>
        <translation>{ram} 放不下：還差 {x}。</translation>
    </message>
    <message>
        <source>Tight in {ram}: {x} left.</source>
        <translation>{ram} 勉強放得下：只剩 {x}。</translation>
    </message>
    <message>
        <source>Fits in {ram} with {x} to spare.</source>
        <translation>{ram} 放得下，還有 {x} 餘裕。</translation>
    </message>
</context>
<context>
    <name>ImportReportPanel</name>
    <message>
        <source>Imported training config</source>
        <translation>匯入的訓練設定檔</translation>
    </message>
</context>
<context>
    <name>KvCard</name>
    <message>
        <source>MLA, one latent of {r} + {rope} per layer</source>
        <translation>MLA，每層一個 {r} + {rope} 維的潛在向量</translation>
    </message>
    <message>
        <source>{kind}, {kv} KV heads for {q} query heads</source>
        <translation>{kind}，{q} 個 query head 共用 {kv} 個 KV head</translation>
    </message>
    <message>
        <source>; {n} layers slide over {w:,} tokens</source>
        <translation>；{n} 層用 {w:,} token 的滑動視窗</translation>
    </message>
</context>
<context>
    <name>LessonView</name>
    <message>
        <source>Start this lesson</source>
        <translation>開始這一課</translation>
    </message>
    <message>
        <source>Sets up the exercise (model, GPU, settings) and opens the lesson&apos;s page</source>
        <translation>設定好練習（模型、GPU、各項設定），並打開這一課的頁面</translation>
    </message>
    <message>
        <source>On the {page} page</source>
        <translation>在「{page}」頁</translation>
    </message>
    <message>
        <source>Start again</source>
        <translation>重新開始</translation>
    </message>
    <message>
        <source>Hint {n}: {text}</source>
        <translation>提示 {n}：{text}</translation>
    </message>
    <message>
        <source>Show a hint ({n} of {total})</source>
        <translation>顯示提示（第 {n} 個，共 {total} 個）</translation>
    </message>
    <message>
        <source>Every hint is shown</source>
        <translation>提示都已顯示</translation>
    </message>
    <message>
        <source>Press Start: it sets up the exercise and opens the {page} page. The goal is then checked as you change the setup.</source>
        <translation>按下「開始這一課」：會設定好練習，並打開「{page}」頁。之後你每改一次設定，目標就會自動檢查。</translation>
    </message>
    <message>
        <source>✓ Goal met.</source>
        <translation>✓ 達成目標。</translation>
    </message>
    <message>
        <source>✗ Not yet.</source>
        <translation>✗ 還沒達成。</translation>
    </message>
    <message>
        <source>Source: {source}</source>
        <translation>出處：{source}</translation>
    </message>
    <message>
        <source>Why it works</source>
        <translation>為什麼這樣可行</translation>
    </message>
    <message>
        <source>Facts and sources</source>
        <translation>事實與出處</translation>
    </message>
</context>
<context>
    <name>LessonsDock</name>
    <message>
        <source>Lessons</source>
        <translation>課程</translation>
    </message>
</context>
<context>
    <name>LessonsPanel</name>
    <message>
        <source>passed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>◀ Previous</source>
        <translation>◀ 上一課</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一課 ▶</translation>
    </message>
    <message>
        <source>Reset progress…</source>
        <translation>重設進度…</translation>
    </message>
    <message>
        <source>Reset progress</source>
        <translation>重設進度</translation>
    </message>
    <message>
        <source>Forget which lessons you passed and the hints you revealed?</source>
        <translation>要清除已完成的課和已顯示的提示嗎？</translation>
    </message>
    <message>
        <source>{n} of {total} lessons passed</source>
        <translation>已完成 {n} 課，共 {total} 課</translation>
    </message>
</context>
<context>
    <name>LeverCard</name>
    <message>
        <source>Each term at its largest during the step</source>
        <translation>每一項在這一步中的最大值</translation>
    </message>
    <message>
        <source>This is your setup</source>
        <translation>這是你目前的設定</translation>
    </message>
    <message>
        <source>Use “{step}” in my setup</source>
        <translation>把「{step}」套用到我的設定</translation>
    </message>
    <message>
        <source>Time: cannot be estimated (hover for why)</source>
        <translation>時間：無法估算（滑鼠移上去看原因）</translation>
    </message>
    <message>
        <source>Time per step {b:.3g} s, {tps} tokens/s per GPU</source>
        <translation>每步 {b:.3g} 秒，每張 GPU {tps} token/秒</translation>
    </message>
    <message>
        <source>Time per step {a:.3g} s → {b:.3g} s; tokens/s per GPU {x} → {y} ({c:+.0%})</source>
        <translation>每步 {a:.3g} 秒 → {b:.3g} 秒；每張 GPU {x} → {y} token/秒（{c:+.0%}）</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>放得下</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>放不下</translation>
    </message>
    <message>
        <source>Allocated peak {a} → {b}; device total {c} → {d} of {gpu}: {v}</source>
        <translation>已配置尖峰 {a} → {b}；裝置總量 {c} → {d}（{gpu}）：{v}</translation>
    </message>
</context>
<context>
    <name>LeversPage</name>
    <message>
        <source>1 GPU</source>
        <translation>1 張 GPU</translation>
    </message>
    <message>
        <source>{n} GPUs, {sharding}</source>
        <translation>{n} 張 GPU，{sharding}</translation>
    </message>
    <message>
        <source>ZeRO-3 × {n}</source>
        <translation>ZeRO-3 × {n}</translation>
    </message>
    <message>
        <source>Shrinks what is trained: the weights W₀ stay frozen and a low-rank update (α/r)·BA is learned, so gradients and optimizer states follow the adapters only. QLoRA also stores the frozen weights in 4-bit NF4.</source>
        <translation>縮小「要訓練的參數」：凍結原本的權重 W₀，只學一個低秩更新 (α/r)·BA，梯度和優化器狀態只跟著 adapter 走。QLoRA 再把凍結的權重壓到 4-bit NF4。</translation>
    </message>
    <message>
        <source>Moves: gradients, optimizer states (QLoRA: weights too)</source>
        <translation>動到：梯度、優化器狀態（QLoRA 也動到權重）</translation>
    </message>
    <message>
        <source>FlashAttention · checkpointing</source>
        <translation>FlashAttention · 梯度檢查點</translation>
    </message>
    <message>
        <source>Shrinks activations: FlashAttention computes attention in tiles and never writes the s×s scores to memory, with the same result; checkpointing keeps each layer&apos;s input and recomputes the rest in backward.</source>
        <translation>縮小「激活值」：FlashAttention 分塊計算注意力、不把 s×s 分數寫進記憶體，結果完全相同；梯度檢查點只存每層的輸入，反向時再算一次。</translation>
    </message>
    <message>
        <source>Moves: activations</source>
        <translation>動到：激活值</translation>
    </message>
    <message>
        <source>Eager</source>
        <translation>Eager</translation>
    </message>
    <message>
        <source>Flash / SDPA</source>
        <translation>Flash／SDPA</translation>
    </message>
    <message>
        <source>Flash + checkpointing</source>
        <translation>Flash + 梯度檢查點</translation>
    </message>
    <message>
        <source>Splits the model states over N GPUs: each holds 1/N of the weights, gradients and optimizer states. Activations do not shrink.</source>
        <translation>把模型狀態分給 N 張卡：每張只放 1/N 的權重、梯度和優化器狀態。激活值不會因此變小。</translation>
    </message>
    <message>
        <source>Moves: weights, gradients, optimizer states (÷N)</source>
        <translation>動到：權重、梯度、優化器狀態（÷N）</translation>
    </message>
    <message>
        <source>Long context: chunked loss · activation offload</source>
        <translation>長上下文：分塊損失 · 激活值卸載</translation>
    </message>
    <message>
        <source>Shrinks what grows with the sequence and what LoRA does not touch: a chunked loss runs the output layer and the loss over a few hundred tokens at a time, so the fp32 logits are never whole; a fused linear cross-entropy does it in one kernel; activation offloading moves the saved activations to host RAM and brings them back in backward.</source>
        <translation>縮小隨序列長度成長、LoRA 動不到的部分：分塊損失每次只對幾百個 token 計算輸出層與損失，fp32 輸出分數從不完整存在；線性層與交叉熵合併計算在一個核心函式裡做到同樣的事；激活值卸載把存下的激活值搬到主機記憶體，反向傳播時再搬回來。</translation>
    </message>
    <message>
        <source>Moves: logits, activations (offload: to host RAM)</source>
        <translation>動到：輸出分數、激活值（卸載：搬到主機記憶體）</translation>
    </message>
    <message>
        <source>Standard</source>
        <translation>標準</translation>
    </message>
    <message>
        <source>Chunked</source>
        <translation>分塊</translation>
    </message>
    <message>
        <source>Fused CE</source>
        <translation>合併 CE</translation>
    </message>
    <message>
        <source>+ offload</source>
        <translation>+ 卸載</translation>
    </message>
    <message>
        <source>Standard loss: transformers&apos; cross-entropy over the whole fp32 logits</source>
        <translation>標準損失：transformers 對完整 fp32 輸出分數計算交叉熵</translation>
    </message>
    <message>
        <source>Chunked loss: TRL&apos;s loss_type=&apos;chunked_nll&apos;, 256-token checkpointed chunks</source>
        <translation>分塊損失：TRL 的 loss_type=&apos;chunked_nll&apos;，每塊 256 個 token，並做檢查點</translation>
    </message>
    <message>
        <source>Fused linear cross-entropy: Liger-Kernel (use_liger_kernel=True)</source>
        <translation>線性層與交叉熵合併計算：Liger-Kernel（use_liger_kernel=True）</translation>
    </message>
    <message>
        <source>Fused linear cross-entropy with the saved activations offloaded to host RAM</source>
        <translation>線性層與交叉熵合併計算，並把存下的激活值卸載到主機記憶體</translation>
    </message>
    <message>
        <source>The chunked loss runs the output layer again in backward: about {r:.0%} more compute for this model.</source>
        <translation>分塊損失在反向傳播時會再算一次輸出層：此模型約多 {r:.0%} 的計算。</translation>
    </message>
    <message>
        <source>The chunked loss runs the output layer again in backward: about {r:.0%} more compute for this model. Offloading moves {moved} per GPU to host RAM (host RAM at its peak: {host} per node).</source>
        <translation>分塊損失在反向傳播時會再算一次輸出層：此模型約多 {r:.0%} 的計算。卸載會把每張 GPU 的 {moved} 搬到主機記憶體（主機記憶體尖峰：每個節點 {host}）。</translation>
    </message>
    <message>
        <source>Start here: {term} are the biggest term</source>
        <translation>從這裡開始：「{term}」是最大的一項</translation>
    </message>
    <message>
        <source>Rank {r}: {n} trainable parameters, {a:.2f}% of all {t} parameters, {b:.2f}% of the {ne} outside the embedding and output layers.</source>
        <translation>Rank {r}：可訓練參數 {n} 個，佔全部 {t} 個參數的 {a:.2f}%，佔嵌入層與輸出層以外 {ne} 個的 {b:.2f}%。</translation>
    </message>
    <message>
        <source> With LoRA the frozen weights are still gathered, but only the adapters have gradients to send: the ratio grows.</source>
        <translation> 用 LoRA 時凍結的權重照樣要收集，但只有 adapter 有梯度要傳：倍數因此變大。</translation>
    </message>
    <message>
        <source>Communication: {f:.2f}× plain data parallelism per step ({z} against {d}): the weights are gathered in forward and again in backward, three volumes instead of two ({source}).</source>
        <translation>通訊量：每步是一般資料平行的 {f:.2f} 倍（{z} 對 {d}）：權重在前向收集一次、反向再收集一次，三份量而不是兩份（{source}）。</translation>
    </message>
    <message>
        <source>Find the biggest term first, then pick the lever that moves it.</source>
        <translation>先找出最大的一項，再挑能動到它的槓桿。</translation>
    </message>
    <message>
        <source>Here the biggest term is {term} ({bytes}).</source>
        <translation>這裡最大的一項是「{term}」（{bytes}）。</translation>
    </message>
    <message>
        <source>None of these levers moves it.</source>
        <translation>這些槓桿都動不到它。</translation>
    </message>
    <message>
        <source>{lever}, set to “{step}”, moves it to {after}.</source>
        <translation>{lever} 設成「{step}」，可以把它降到 {after}。</translation>
    </message>
    <message>
        <source>Every memory-saving trick moves only one term of the formula. Find the biggest term first, then pick the right lever.</source>
        <translation>省記憶體的技巧很多，但每一個只動到公式裡的某一項。先找出哪一項最大，再挑對的槓桿。</translation>
    </message>
    <message>
        <source>N = </source>
        <translation>N = </translation>
    </message>
    <message>
        <source> GPUs</source>
        <translation> 張 GPU</translation>
    </message>
</context>
<context>
    <name>LiveBlocksTable</name>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Term</source>
        <translation>項目</translation>
    </message>
    <message>
        <source>Phase</source>
        <translation>階段</translation>
    </message>
    <message>
        <source>Allocated at</source>
        <translation>配置於</translation>
    </message>
    <message>
        <source>Stack frames (innermost first)</source>
        <translation>堆疊框架（最內層在前）</translation>
    </message>
    <message>
        <source>before recording</source>
        <translation>錄製開始前</translation>
    </message>
    <message>
        <source>event {n}</source>
        <translation>事件 {n}</translation>
    </message>
    <message>
        <source>(no frames recorded)</source>
        <translation>（沒有記錄堆疊）</translation>
    </message>
</context>
<context>
    <name>LongContextGroup</name>
    <message>
        <source>Long context</source>
        <translation>長上下文</translation>
    </message>
    <message>
        <source>Standard (whole fp32 logits)</source>
        <translation>標準（完整的 fp32 輸出分數）</translation>
    </message>
    <message>
        <source>Chunked (TRL chunked_nll)</source>
        <translation>分塊（TRL chunked_nll）</translation>
    </message>
    <message>
        <source>Chunked output (torchtune)</source>
        <translation>分塊輸出（torchtune）</translation>
    </message>
    <message>
        <source>Fused linear CE (Liger)</source>
        <translation>線性層與 CE 合併（Liger）</translation>
    </message>
    <message>
        <source>Chunked backward (torchtitan)</source>
        <translation>逐塊反向傳播（torchtitan）</translation>
    </message>
    <message>
        <source>How the loss over the vocabulary is computed: a chunked or fused loss never holds the whole fp32 logits</source>
        <translation>對整個詞彙表的損失怎麼算：分塊或合併計算的損失從不存下完整的 fp32 輸出分數</translation>
    </message>
    <message>
        <source>the tool&apos;s own</source>
        <translation>工具預設</translation>
    </message>
    <message>
        <source>Chunks of a chunked loss; the tool&apos;s own: TRL&apos;s 256-token chunks, torchtune&apos;s 8 chunks</source>
        <translation>分塊損失的塊數；工具預設：TRL 每塊 256 個 token，torchtune 分 8 塊</translation>
    </message>
    <message>
        <source>Offload activations to CPU RAM</source>
        <translation>把激活值卸載到 CPU 記憶體</translation>
    </message>
    <message>
        <source>The saved activations go to host RAM in forward and come back in backward (torchtune / TRL OffloadActivations)</source>
        <translation>存下的激活值在前向傳播時搬到主機記憶體，反向傳播時再搬回來（torchtune／TRL OffloadActivations）</translation>
    </message>
    <message>
        <source>None</source>
        <translation>不使用</translation>
    </message>
    <message>
        <source>Full (each layer&apos;s input)</source>
        <translation>完整（保留每層的輸入）</translation>
    </message>
    <message>
        <source>Selective (attention only)</source>
        <translation>選擇性（只重算注意力）</translation>
    </message>
    <message>
        <source>Per operator (torchtitan)</source>
        <translation>以運算子為單位（torchtitan）</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>損失</translation>
    </message>
    <message>
        <source>Loss chunks</source>
        <translation>損失分塊數</translation>
    </message>
    <message>
        <source>Checkpointing</source>
        <translation>檢查點</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>VRAM Lab — {page}</source>
        <translation>VRAM Lab — {page}</translation>
    </message>
</context>
<context>
    <name>MemoryControls</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Type to search; grouped by family, with parameter counts</source>
        <translation>輸入文字搜尋；依模型家族分組，附參數量</translation>
    </message>
    <message>
        <source>Import config.json…</source>
        <translation>匯入 config.json…</translation>
    </message>
    <message>
        <source>From a file…</source>
        <translation>從檔案…</translation>
    </message>
    <message>
        <source>From a folder (or HF cache folder)…</source>
        <translation>從資料夾（或 HF 快取資料夾）…</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>q, v</source>
        <translation>q、v</translation>
    </message>
    <message>
        <source>All attention</source>
        <translation>所有注意力層</translation>
    </message>
    <message>
        <source>All linear layers</source>
        <translation>所有線性層</translation>
    </message>
    <message>
        <source>q, v, o and the MLP (torchtune)</source>
        <translation>q、v、o、MLP 層（torchtune）</translation>
    </message>
    <message>
        <source>DoRA (trained magnitude per output row)</source>
        <translation>DoRA（每個輸出列訓練一個幅度值）</translation>
    </message>
    <message>
        <source>Embedding rows trained beside LoRA (PEFT trainable tokens)</source>
        <translation>在 LoRA 之外訓練的詞嵌入列（PEFT trainable tokens）</translation>
    </message>
    <message>
        <source>Trained layers: the last n, or the first n when negative</source>
        <translation>訓練的層：最後 n 層，負數則為最前 n 層</translation>
    </message>
    <message>
        <source>OFT rotation block size</source>
        <translation>OFT 旋轉區塊大小</translation>
    </message>
    <message>
        <source>LoRA rank</source>
        <translation>LoRA rank</translation>
    </message>
    <message>
        <source>LoRA targets</source>
        <translation>LoRA 套用層</translation>
    </message>
    <message>
        <source>Train in full</source>
        <translation>完整訓練</translation>
    </message>
    <message>
        <source>Trained tokens</source>
        <translation>訓練的 token</translation>
    </message>
    <message>
        <source>Trained layers</source>
        <translation>訓練的層</translation>
    </message>
    <message>
        <source>OFT block</source>
        <translation>OFT 區塊</translation>
    </message>
    <message>
        <source>Embeddings</source>
        <translation>Embedding</translation>
    </message>
    <message>
        <source>Output layer</source>
        <translation>輸出層</translation>
    </message>
    <message>
        <source>Sequence length and batch</source>
        <translation>序列長度與批次</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 個 token</translation>
    </message>
    <message>
        <source>Sequence</source>
        <translation>序列</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批次</translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step: their gradients stay in memory</source>
        <translation>每次優化器更新前的微批次數：其梯度都留在記憶體中</translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation>梯度累加</translation>
    </message>
    <message>
        <source>Memory switches</source>
        <translation>省記憶體的開關</translation>
    </message>
    <message>
        <source>FlashAttention</source>
        <translation>FlashAttention</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>梯度檢查點</translation>
    </message>
    <message>
        <source>8-bit optimizer</source>
        <translation>8-bit 優化器</translation>
    </message>
    <message>
        <source>GaLore&apos;s and APOLLO&apos;s projection rank</source>
        <translation>GaLore 與 APOLLO 的投影 rank</translation>
    </message>
    <message>
        <source>BF16 mixed (fp32 master + states)</source>
        <translation>BF16 混合精度（fp32 主權重 + 狀態）</translation>
    </message>
    <message>
        <source>FP16 mixed (fp32 master + states)</source>
        <translation>FP16 混合精度（fp32 主權重 + 狀態）</translation>
    </message>
    <message>
        <source>Pure BF16 (weights, grads, states)</source>
        <translation>純 BF16（權重、梯度、狀態）</translation>
    </message>
    <message>
        <source>FP32 weights, BF16 autocast</source>
        <translation>FP32 權重，BF16 autocast</translation>
    </message>
    <message>
        <source>FP32 weights, FP16 autocast</source>
        <translation>FP32 權重，FP16 autocast</translation>
    </message>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>Eager (stores s×s scores)</source>
        <translation>Eager（存下 s×s 分數）</translation>
    </message>
    <message>
        <source>PyTorch SDPA</source>
        <translation>PyTorch SDPA</translation>
    </message>
    <message>
        <source>FlashAttention 2</source>
        <translation>FlashAttention 2</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>優化器</translation>
    </message>
    <message>
        <source>Projection rank</source>
        <translation>投影 rank</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Training stack</source>
        <translation>訓練框架</translation>
    </message>
    <message>
        <source>Whose code runs the training step (the Hugging Face Trainer: also TRL, Axolotl and LLaMA-Factory): its own rules change the memory (PEFT&apos;s fp32 preparation of a QLoRA model, the AdamW implementation it picks)</source>
        <translation>由誰的程式碼跑訓練步驟（Hugging Face Trainer：也包括 TRL、Axolotl 和 LLaMA-Factory）：它自己的規則會改變記憶體用量（PEFT 為 QLoRA 模型做的 FP32 準備、它選的 AdamW 實作）</translation>
    </message>
    <message>
        <source>AdamW step</source>
        <translation>AdamW 實作</translation>
    </message>
    <message>
        <source>How torch&apos;s AdamW runs its step: foreach makes a temporary as large as all its states at once, the for-loop two of the largest parameter, fused nothing of a parameter&apos;s size</source>
        <translation>PyTorch 的 AdamW 怎麼更新一步：foreach 一次配置跟所有狀態一樣大的暫存，for-loop 配置兩份最大參數的大小，fused 不配置參數大小的暫存</translation>
    </message>
    <message>
        <source>Stack</source>
        <translation>訓練框架</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>None (data parallel)</source>
        <translation>不分片（資料平行）</translation>
    </message>
    <message>
        <source>ZeRO-3 / FSDP</source>
        <translation>ZeRO-3／FSDP</translation>
    </message>
    <message>
        <source>Offload optimizer states to CPU</source>
        <translation>把優化器狀態卸載到 CPU</translation>
    </message>
    <message>
        <source>Offload parameters to CPU (ZeRO-3)</source>
        <translation>把參數卸載到 CPU（ZeRO-3）</translation>
    </message>
    <message>
        <source>… the optimizer states on to NVMe</source>
        <translation>… 優化器狀態再轉存到 NVMe</translation>
    </message>
    <message>
        <source>… the parameters on to NVMe</source>
        <translation>… 參數再轉存到 NVMe</translation>
    </message>
    <message>
        <source>ZeRO-Infinity: to disk through pinned host buffers (DeepSpeed, ZeRO-3)</source>
        <translation>ZeRO-Infinity：經由主機鎖頁緩衝區寫到磁碟（DeepSpeed，ZeRO-3）</translation>
    </message>
    <message>
        <source>GPU type</source>
        <translation>GPU 型號</translation>
    </message>
    <message>
        <source>GPU count</source>
        <translation>GPU 數量</translation>
    </message>
    <message>
        <source>Sharding</source>
        <translation>分片</translation>
    </message>
    <message>
        <source>ZeRO-2 / ZeRO-3 run by DeepSpeed, or by PyTorch FSDP (under the Hugging Face Trainer, accelerate keeps fp32 copies of what trains)</source>
        <translation>ZeRO-2／ZeRO-3 由 DeepSpeed 或 PyTorch FSDP 執行（在 Hugging Face Trainer 底下，accelerate 會把要訓練的參數存成 FP32）</translation>
    </message>
    <message>
        <source>Sharded by</source>
        <translation>分片實作</translation>
    </message>
    <message>
        <source>Units</source>
        <translation>單位</translation>
    </message>
    <message>
        <source>Import a Hugging Face config.json</source>
        <translation>匯入 Hugging Face 的 config.json</translation>
    </message>
    <message>
        <source>config.json (*.json);;All files (*)</source>
        <translation>config.json (*.json);;所有檔案 (*)</translation>
    </message>
    <message>
        <source>Folder holding a config.json</source>
        <translation>含有 config.json 的資料夾</translation>
    </message>
</context>
<context>
    <name>MemoryPage</name>
    <message>
        <source>Overview</source>
        <translation>總覽</translation>
    </message>
    <message>
        <source>Host RAM</source>
        <translation>主機記憶體</translation>
    </message>
    <message>
        <source>Layout planner</source>
        <translation>平行配置規劃</translation>
    </message>
    <message>
        <source>This setup</source>
        <translation>目前設定</translation>
    </message>
    <message>
        <source>Host RAM ✗</source>
        <translation>主機記憶體 ✗</translation>
    </message>
    <message>
        <source>GPU types</source>
        <translation>選 GPU</translation>
    </message>
    <message>
        <source>Stage {n} · layers {first}–{last}</source>
        <translation>第 {n} 段 · 第 {first}–{last} 層</translation>
    </message>
    <message>
        <source>One bar per pipeline stage, on one of its GPUs: stage {n} (layers {first}–{last}) is the most loaded (outlined), and the figures above are its. Pipeline bubble {bubble:.0%}. Hover a bar for its terms.</source>
        <translation>每個管線階段一條長條（該階段的一張 GPU）：第 {n} 段（第 {first}–{last} 層）負載最重（加框），上方數字就是它的。管線氣泡 {bubble:.0%}。游標移到長條上可看各項。</translation>
    </message>
    <message>
        <source>The logits ({logits}) are larger than the weights ({weights}): LoRA and QLoRA do not shrink them; a chunked loss or a shorter sequence does.</source>
        <translation>輸出分數（{logits}）比權重（{weights}）還大：LoRA 與 QLoRA 縮不了它；分塊計算損失或縮短序列才行。</translation>
    </message>
    <message>
        <source>Could not import the config</source>
        <translation>無法匯入 config</translation>
    </message>
    <message>
        <source>Import notes</source>
        <translation>匯入說明</translation>
    </message>
</context>
<context>
    <name>MlaPanel</name>
    <message>
        <source>{model} (GQA, {n} layers): {b:,} bytes per token</source>
        <translation>{model}（GQA，{n} 層）：每個 token {b:,} 位元組</translation>
    </message>
    <message>
        <source>{model} (MLA, {n} layers): {b:,} bytes per token</source>
        <translation>{model}（MLA，{n} 層）：每個 token {b:,} 位元組</translation>
    </message>
    <message>
        <source>&lt;b&gt;Like for like ({dtype}): {lfl:.1%} smaller per token, {layer:.1%} per layer.&lt;/b&gt;</source>
        <translation>&lt;b&gt;同條件比較（{dtype}）：每個 token 小 {lfl:.1%}，每層小 {layer:.1%}。&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Published: {p:.1%} smaller; rebuilt from the formulas with V2&apos;s 6-bit cache: {r:.1%}.</source>
        <translation>官方數據：小 {p:.1%}；用公式加上 V2 的 6-bit cache 重算：{r:.1%}。</translation>
    </message>
    <message>
        <source>The published {p:.1%} compares {mla}&apos;s deployed cache (about {bits} bits per element, {mla_layers} layers) with {gqa}&apos;s (16-bit, {gqa_layers} layers). In the same dtype ({dtype}), {mla} caches {lfl:.1%} less per token ({mla_layers} vs {gqa_layers} layers) and {layer:.1%} less per layer.</source>
        <translation>官方數據的 {p:.1%} 是拿 {mla} 實際部署的 cache（每個元素約 {bits} 位元、{mla_layers} 層）和 {gqa} 的（16 位元、{gqa_layers} 層）相比。在同樣的資料型別（{dtype}）下，{mla} 每個 token 的 cache 少 {lfl:.1%}（{mla_layers} 層對 {gqa_layers} 層），每層少 {layer:.1%}。</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>On this computer</source>
        <translation>本機模型</translation>
    </message>
    <message>
        <source>Imported</source>
        <translation>匯入的模型</translation>
    </message>
</context>
<context>
    <name>OverviewSection</name>
    <message>
        <source>tokens (log scale)</source>
        <translation>token 數（對數刻度）</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 數量</translation>
    </message>
    <message>
        <source>Same settings, three methods</source>
        <translation>同樣的設定，三種方法</translation>
    </message>
    <message>
        <source>Per GPU against sequence length</source>
        <translation>每張 GPU 對序列長度</translation>
    </message>
    <message>
        <source>Per GPU against GPU count</source>
        <translation>每張 GPU 對 GPU 數量</translation>
    </message>
    <message>
        <source>{method}: n/a</source>
        <translation>{method}：不適用</translation>
    </message>
    <message>
        <source>Accuracy: the allocated peak is within {worst:.1%} of {n} real training steps measured on an H200 (median {median:.1%}); see docs/accuracy.md.</source>
        <translation>準確度：已配置尖峰與在 H200 上實測的 {n} 個訓練步驟相差不超過 {worst:.1%}（中位數 {median:.1%}）；詳見 docs/accuracy.md。</translation>
    </message>
    <message>
        <source>Assumptions: activations counted tensor by tensor for Hugging Face layers (the method of Korthikanti et al. 2022); LoRA adapters in fp32 (PEFT&apos;s default); QLoRA stores the frozen linear layers in 4-bit NF4 with double quantization, embeddings, norms and output layer in fp32 under the Hugging Face Trainer (PEFT&apos;s preparation), in 16 bits elsewhere; the GPU-count curve uses {sharding}.</source>
        <translation>假設：激活值依 Hugging Face 各層逐個張量計算（Korthikanti 等人 2022 的方法）；LoRA adapter 用 fp32（PEFT 預設）；QLoRA 把凍結的線性層存成 4-bit NF4 加雙重量化，嵌入層、正規化層與輸出層在 Hugging Face Trainer 底下是 fp32（PEFT 的準備），其他框架維持 16 位元；GPU 數量曲線使用 {sharding}。</translation>
    </message>
</context>
<context>
    <name>PagingPlayer</name>
    <message>
        <source>Reset</source>
        <translation>重設</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Solid: slots holding tokens · pale: reserved but empty · outlined: free. Each colour is one request.</source>
        <translation>實心：放著 token 的格子 · 淺色：保留但空著 · 空框：可用。每種顏色代表一個請求。</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暫停</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>{n} steps per tick</source>
        <translation>每格 {n} 步</translation>
    </message>
    <message>
        <source>Reserved at the maximum length ({n:,} tokens)</source>
        <translation>按最大長度預留（{n:,} token）</translation>
    </message>
    <message>
        <source>Paged: blocks of {n} tokens</source>
        <translation>分頁：每個區塊 {n} 個 token</translation>
    </message>
    <message>
        <source>Wasted so far: {total:.1%} (now {now:.1%})</source>
        <translation>累計浪費：{total:.1%}（目前 {now:.1%}）</translation>
    </message>
    <message>
        <source>Step {step:,} · running {r} · waiting {w} · finished {d} of {n}</source>
        <translation>第 {step:,} 步 · 執行中 {r} · 等待中 {w} · 已完成 {d}／{n}</translation>
    </message>
</context>
<context>
    <name>ParallelControls</name>
    <message>
        <source>Parallelism (TP × PP × CP × EP)</source>
        <translation>平行化（TP × PP × CP × EP）</translation>
    </message>
    <message>
        <source>Tensor parallelism: splits every layer&apos;s linears over t GPUs of a node</source>
        <translation>張量平行：把每層的線性層切到同一節點的 t 張 GPU</translation>
    </message>
    <message>
        <source>Pipeline parallelism: consecutive layers on p stages</source>
        <translation>管線平行：連續的層分成 p 個階段</translation>
    </message>
    <message>
        <source>Context parallelism: splits the sequence over c GPUs (ring attention)</source>
        <translation>上下文平行：把序列切到 c 張 GPU（ring attention）</translation>
    </message>
    <message>
        <source>Expert parallelism: a MoE layer&apos;s experts spread over e GPUs</source>
        <translation>專家平行：MoE 層的專家分散到 e 張 GPU</translation>
    </message>
    <message>
        <source>Ring attention</source>
        <translation>環狀注意力（ring attention）</translation>
    </message>
    <message>
        <source>Ulysses all-to-all</source>
        <translation>Ulysses 全對全交換（all-to-all）</translation>
    </message>
    <message>
        <source>How context parallelism exchanges the sequence: ring attention&apos;s key/value chunks, or DeepSpeed-Ulysses&apos; all-to-all of q, k, v</source>
        <translation>上下文平行如何交換序列：環狀注意力（ring attention）傳遞 key/value 區塊，或 DeepSpeed-Ulysses 對 q、k、v 做全對全交換（all-to-all）</translation>
    </message>
    <message>
        <source>Sequence parallelism (with TP)</source>
        <translation>序列平行（搭配 TP）</translation>
    </message>
    <message>
        <source>Micro-batches per step flowing through the pipeline</source>
        <translation>每步流經管線的微批次數</translation>
    </message>
    <message>
        <source>Interleaved 1F1B</source>
        <translation>交錯式 1F1B</translation>
    </message>
    <message>
        <source>Model chunks per stage (interleaved schedule)</source>
        <translation>每個階段的模型區塊數（交錯式排程）</translation>
    </message>
    <message>
        <source>TP</source>
        <translation>TP</translation>
    </message>
    <message>
        <source>PP</source>
        <translation>PP</translation>
    </message>
    <message>
        <source>CP</source>
        <translation>CP</translation>
    </message>
    <message>
        <source>CP exchange</source>
        <translation>CP 交換方式</translation>
    </message>
    <message>
        <source>EP</source>
        <translation>EP</translation>
    </message>
    <message>
        <source>Micro-batches</source>
        <translation>微批次</translation>
    </message>
    <message>
        <source>Schedule</source>
        <translation>排程</translation>
    </message>
    <message>
        <source>Virtual stages</source>
        <translation>虛擬階段</translation>
    </message>
    <message>
        <source>Data parallelism: {dp} = {gpus} GPUs / (TP {tp} × PP {pp} × CP {cp})</source>
        <translation>資料平行：{dp} = {gpus} 張 GPU / (TP {tp} × PP {pp} × CP {cp})</translation>
    </message>
</context>
<context>
    <name>PeakSummary</name>
    <message>
        <source>forward pass</source>
        <translation>前向傳播</translation>
    </message>
    <message>
        <source>backward pass</source>
        <translation>反向傳播</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>優化器更新</translation>
    </message>
    <message>
        <source>Allocated peak</source>
        <translation>已配置尖峰</translation>
    </message>
    <message>
        <source>Reserved</source>
        <translation>保留量</translation>
    </message>
    <message>
        <source>Device total</source>
        <translation>裝置總量</translation>
    </message>
    <message>
        <source>Allocated peak: what torch.cuda.max_memory_allocated() reports (live tensors).
Reserved: plus the caching allocator&apos;s rounding and fragmentation.
Device total: plus the CUDA context and libraries — what nvidia-smi shows.</source>
        <translation>已配置尖峰：torch.cuda.max_memory_allocated() 回報的值（存活中的張量）。
保留量：再加上快取配置器的進位與碎片。
裝置總量：再加上 CUDA 執行環境與函式庫，也就是 nvidia-smi 看到的數字。</translation>
    </message>
    <message>
        <source>first step</source>
        <translation>第一步</translation>
    </message>
    <message>
        <source>later steps</source>
        <translation>之後的步驟</translation>
    </message>
    <message>
        <source>per GPU, at the peak: {phase}, {step}</source>
        <translation>每張 GPU 的尖峰：{phase}，{step}</translation>
    </message>
    <message>
        <source>Does not fit on {gpu}: short by {x}</source>
        <translation>{gpu} 放不下：還差 {x}</translation>
    </message>
    <message>
        <source>Tight on {gpu}: {x} left</source>
        <translation>{gpu} 很緊：只剩 {x}</translation>
    </message>
    <message>
        <source>Fits on {gpu} with {x} headroom</source>
        <translation>{gpu} 放得下，還有 {x} 餘裕</translation>
    </message>
</context>
<context>
    <name>PlanTable</name>
    <message>
        <source>TP {v:.0f} inside a node</source>
        <translation>TP {v:.0f} 在節點內</translation>
    </message>
    <message>
        <source>TP {v:.0f} across nodes: slow</source>
        <translation>TP {v:.0f} 跨節點：慢</translation>
    </message>
    <message>
        <source>pipeline bubble {v:.0%}</source>
        <translation>管線氣泡 {v:.0%}</translation>
    </message>
    <message>
        <source>CP {v:.0f}: ring attention passes K, V around</source>
        <translation>CP {v:.0f}：ring attention 輪流傳遞 K、V</translation>
    </message>
    <message>
        <source>EP {v:.0f}: an all-to-all per MoE layer</source>
        <translation>EP {v:.0f}：每個 MoE 層一次 all-to-all</translation>
    </message>
    <message>
        <source>ZeRO-3: {v:g}× the traffic of data parallelism</source>
        <translation>ZeRO-3：通訊量是資料平行的 {v:g} 倍</translation>
    </message>
    <message>
        <source>data parallelism only</source>
        <translation>只有資料平行</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>DP</source>
        <translation>DP</translation>
    </message>
    <message>
        <source>TP</source>
        <translation>TP</translation>
    </message>
    <message>
        <source>PP</source>
        <translation>PP</translation>
    </message>
    <message>
        <source>CP</source>
        <translation>CP</translation>
    </message>
    <message>
        <source>EP</source>
        <translation>EP</translation>
    </message>
    <message>
        <source>ZeRO</source>
        <translation>ZeRO</translation>
    </message>
    <message>
        <source>SP</source>
        <translation>SP</translation>
    </message>
    <message>
        <source>Ckpt</source>
        <translation>檢查點</translation>
    </message>
    <message>
        <source>µB</source>
        <translation>微批次</translation>
    </message>
    <message>
        <source>Allocated</source>
        <translation>已配置</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>裝置總計</translation>
    </message>
    <message>
        <source>Communication</source>
        <translation>通訊</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>Run hours</source>
        <translation>訓練時數</translation>
    </message>
    <message>
        <source>the run&apos;s tokens per second over all its GPUs (the step-time model)</source>
        <translation>整個訓練在所有 GPU 上每秒處理的 token 數（步驟時間模型）</translation>
    </message>
    <message>
        <source>the dataset&apos;s tokens times the epochs at that speed (set the dataset&apos;s tokens on the Host RAM tab)</source>
        <translation>以這個速度跑完資料集 token 數乘以輪數所需的時數（資料集的 token 數在「主機記憶體」分頁設定）</translation>
    </message>
    <message>
        <source>data-parallel replicas</source>
        <translation>資料平行副本數</translation>
    </message>
    <message>
        <source>tensor-parallel size</source>
        <translation>張量平行大小</translation>
    </message>
    <message>
        <source>pipeline stages</source>
        <translation>管線階段數</translation>
    </message>
    <message>
        <source>context-parallel size</source>
        <translation>上下文平行大小</translation>
    </message>
    <message>
        <source>expert-parallel size</source>
        <translation>專家平行大小</translation>
    </message>
    <message>
        <source>ZeRO stage over the data-parallel ranks</source>
        <translation>在資料平行 rank 間的 ZeRO 階段</translation>
    </message>
    <message>
        <source>sequence parallelism</source>
        <translation>序列平行</translation>
    </message>
    <message>
        <source>gradient checkpointing</source>
        <translation>梯度檢查點</translation>
    </message>
    <message>
        <source>micro-batches per step</source>
        <translation>每步微批次數</translation>
    </message>
    <message>
        <source>allocated peak per GPU (the most loaded stage)</source>
        <translation>每張 GPU 的已配置尖峰（負載最重的階段）</translation>
    </message>
    <message>
        <source>device total per GPU, what nvidia-smi shows (the most loaded stage)</source>
        <translation>每張 GPU 的裝置總計，即 nvidia-smi 顯示的值（負載最重的階段）</translation>
    </message>
</context>
<context>
    <name>PlannerSection</name>
    <message>
        <source> GPUs</source>
        <translation> 張 GPU</translation>
    </message>
    <message>
        <source>Fewest GPUs first</source>
        <translation>GPU 最少的先列</translation>
    </message>
    <message>
        <source>Fastest first</source>
        <translation>最快的先列</translation>
    </message>
    <message>
        <source>Use this layout</source>
        <translation>採用這個配置</translation>
    </message>
    <message>
        <source>At most</source>
        <translation>最多</translation>
    </message>
    <message>
        <source>Every layout that fits, fewest GPUs first, then the smallest device total: tensor (TP), pipeline (PP), context (CP) and expert (EP) parallelism, a ZeRO stage and checkpointing; with each one&apos;s speed (tokens/s over all its GPUs) and the run&apos;s hours for the dataset&apos;s tokens (Host RAM tab) times the epochs. Click a header to sort; double-click a row, or select it and press “Use this layout”, to make it the scenario.</source>
        <translation>每一種放得下的配置，GPU 最少的先列，其次是裝置總計最小的：張量（TP）、管線（PP）、上下文（CP）與專家（EP）平行、ZeRO 階段與梯度檢查點；並附上每一種的速度（所有 GPU 合計的 token/秒），以及跑完資料集 token 數（「主機記憶體」分頁）乘以輪數的訓練時數。點欄位標題可排序；雙擊一列，或選取後按「採用這個配置」，就會把它設成目前的情境。</translation>
    </message>
    <message>
        <source>Waiting for the settings to settle…</source>
        <translation>等設定停止變動…</translation>
    </message>
    <message>
        <source>Searching layouts…</source>
        <translation>搜尋配置中…</translation>
    </message>
    <message>
        <source>Searching layouts… {done} of {total}</source>
        <translation>搜尋配置中… {done} / {total}</translation>
    </message>
    <message>
        <source>{rows} layouts fit on at most {n} GPUs.</source>
        <translation>最多 {n} 張 GPU：有 {rows} 種配置放得下。</translation>
    </message>
    <message>
        <source>No layout fits on {n} GPUs or fewer: allow more GPUs, or try LoRA, QLoRA or a shorter sequence.</source>
        <translation>{n} 張 GPU 以內沒有放得下的配置：放寬 GPU 數，或改用 LoRA、QLoRA，或縮短序列。</translation>
    </message>
    <message>
        <source>The search failed: {reason}</source>
        <translation>搜尋失敗：{reason}</translation>
    </message>
</context>
<context>
    <name>PlayerBar</name>
    <message>
        <source>First step (Home)</source>
        <translation>第一步（Home）</translation>
    </message>
    <message>
        <source>Previous step (Left)</source>
        <translation>上一步（←）</translation>
    </message>
    <message>
        <source>Play or pause (Space)</source>
        <translation>播放或暫停（空白鍵）</translation>
    </message>
    <message>
        <source>Next step, animated (Right)</source>
        <translation>下一步，含動畫（→）</translation>
    </message>
    <message>
        <source>Last step (End)</source>
        <translation>最後一步（End）</translation>
    </message>
    <message>
        <source>Animation speed</source>
        <translation>動畫速度</translation>
    </message>
    <message>
        <source>Go to a step</source>
        <translation>跳到某一步</translation>
    </message>
    <message>
        <source>Step {i} / {n}</source>
        <translation>第 {i} / {n} 步</translation>
    </message>
</context>
<context>
    <name>RoadmapView</name>
    <message>
        <source>{s:.3g} s per step</source>
        <translation>每步 {s:.3g} 秒</translation>
    </message>
    <message>
        <source>Options that fit, fastest first</source>
        <translation>放得下的選項，最快的先列</translation>
    </message>
    <message>
        <source>The roadmap up to “{step}”</source>
        <translation>路線圖走到「{step}」</translation>
    </message>
    <message>
        <source>{n} tokens/s</source>
        <translation>{n} token/秒</translation>
    </message>
    <message>
        <source>&lt;b&gt;What would make it fit&lt;/b&gt; — the seed guide&apos;s roadmap, each step on top of the previous</source>
        <translation>&lt;b&gt;怎樣才放得下&lt;/b&gt; — 依筆記的實踐路線圖，每一步疊在前一步之上</translation>
    </message>
    <message>
        <source>&lt;b&gt;It fits.&lt;/b&gt; Nothing to change; the limits as things stand:</source>
        <translation>&lt;b&gt;放得下。&lt;/b&gt;不必更改；目前設定下的上限：</translation>
    </message>
    <message>
        <source>Host RAM, per node</source>
        <translation>主機記憶體（每節點）</translation>
    </message>
    <message>
        <source>{n} tokens</source>
        <translation>{n} token</translation>
    </message>
    <message>
        <source>none</source>
        <translation>無</translation>
    </message>
    <message>
        <source>As things stand — longest sequence that fits: {seq} · largest batch: {batch}</source>
        <translation>照目前設定 — 放得下的最長序列：{seq} · 最大批次：{batch}</translation>
    </message>
</context>
<context>
    <name>RoleTable</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Held as</source>
        <translation>存放方式</translation>
    </message>
    <message>
        <source>Stays</source>
        <translation>常駐</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>執行時</translation>
    </message>
    <message>
        <source>Bytes per GPU held all step long: weights, optimizer states, a rollout engine&apos;s share</source>
        <translation>整步都佔用的每張 GPU 位元組：權重、優化器狀態、生成引擎（rollout）的份額</translation>
    </message>
    <message>
        <source>Bytes per GPU only while this model runs: activations, gradients, logits, a forward pass</source>
        <translation>只在這個模型執行時佔用的每張 GPU 位元組：激活值、梯度、輸出分數、一次前向傳播</translation>
    </message>
    <message>
        <source>Allocated peak</source>
        <translation>已配置尖峰</translation>
    </message>
    <message>
        <source>Device total</source>
        <translation>裝置總量</translation>
    </message>
    <message>
        <source>of {gpu}</source>
        <translation>（{gpu}）</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>放得下</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>放不下</translation>
    </message>
    <message>
        <source>vLLM server</source>
        <translation>vLLM 伺服器</translation>
    </message>
    <message>
        <source>on GPUs of its own</source>
        <translation>在自己的 GPU 上</translation>
    </message>
    <message>
        <source>What stays all step, plus the largest working set: the roles run one after another.</source>
        <translation>整步常駐的部分，加上最大的工作集：各角色依序執行。</translation>
    </message>
    <message>
        <source>The allocated peak with the allocator&apos;s reserve, plus the rollout engine&apos;s share and the CUDA context.</source>
        <translation>已配置尖峰加上配置器保留量，再加上生成引擎（rollout）的份額與 CUDA 執行環境。</translation>
    </message>
    <message>
        <source>The rollout server&apos;s 16-bit weights and the KV cache of every training GPU&apos;s generation batch, on GPUs of its own: not in the device total.</source>
        <translation>生成伺服器（rollout）的 16 位元權重，以及每張訓練 GPU 的生成批次的 KV cache，放在它自己的 GPU 上：不算進裝置總量。</translation>
    </message>
</context>
<context>
    <name>RolloutControls</name>
    <message>
        <source>PPO / GRPO rollout</source>
        <translation>PPO／GRPO 生成（rollout）</translation>
    </message>
    <message>
        <source>Sample completions (TRL GRPOConfig)</source>
        <translation>取樣回答（TRL GRPOConfig）</translation>
    </message>
    <message>
        <source>On: the policy trains on G completions of C tokens per prompt of P tokens, sampled by the rollout engine. Off: the setup&apos;s batch and sequence length.</source>
        <translation>開：每個 P 個 token 的 prompt 由生成引擎（rollout）取樣 G 個 C 個 token 的回答，策略模型在這些回答上訓練。關：按設定的批次與序列長度。</translation>
    </message>
    <message>
        <source>model.generate (in training)</source>
        <translation>model.generate（在訓練行程內）</translation>
    </message>
    <message>
        <source>vLLM colocated</source>
        <translation>vLLM 同卡共置</translation>
    </message>
    <message>
        <source>vLLM server (own GPUs)</source>
        <translation>vLLM 伺服器（自己的 GPU）</translation>
    </message>
    <message>
        <source>vLLM&apos;s gpu_memory_utilization: the share of each GPU a colocated rollout engine reserves for its weights and KV cache (TRL&apos;s colocate default: 0.3). 0: no separate engine.</source>
        <translation>vLLM 的 gpu_memory_utilization：同卡共置的生成引擎（rollout）在每張 GPU 上為權重與 KV cache 保留的比例（TRL colocate 模式預設 0.3）。0 表示沒有獨立的引擎。</translation>
    </message>
    <message>
        <source>Generations per prompt (G)</source>
        <translation>每個 prompt 的生成數（G）</translation>
    </message>
    <message>
        <source>Prompt tokens (P)</source>
        <translation>prompt token 數（P）</translation>
    </message>
    <message>
        <source>Completion tokens (C)</source>
        <translation>回答 token 數（C）</translation>
    </message>
    <message>
        <source>Rollout engine</source>
        <translation>生成引擎（rollout）</translation>
    </message>
    <message>
        <source>vLLM GPU memory utilization</source>
        <translation>vLLM GPU 記憶體使用率</translation>
    </message>
</context>
<context>
    <name>ScenarioFiles</name>
    <message>
        <source>The file cannot be read.</source>
        <translation>無法讀取這個檔案。</translation>
    </message>
    <message>
        <source>The file is damaged: it is not valid JSON text.</source>
        <translation>檔案已損毀：不是有效的 JSON 文字。</translation>
    </message>
    <message>
        <source>This is not a VRAM Lab scenario file.</source>
        <translation>這不是 VRAM Lab 的情境檔。</translation>
    </message>
    <message>
        <source>This scenario was saved by a newer version of VRAM Lab.</source>
        <translation>這個情境是由較新版本的 VRAM Lab 儲存的。</translation>
    </message>
    <message>
        <source>The file holds a value VRAM Lab cannot use.</source>
        <translation>檔案裡有 VRAM Lab 無法使用的數值。</translation>
    </message>
    <message>
        <source>Open scenario</source>
        <translation>開啟情境</translation>
    </message>
    <message>
        <source>Nothing was changed.</source>
        <translation>目前的設定沒有任何變更。</translation>
    </message>
    <message>
        <source>Could not open the scenario</source>
        <translation>無法開啟情境</translation>
    </message>
    <message>
        <source>Save scenario</source>
        <translation>儲存情境</translation>
    </message>
    <message>
        <source>Could not save the scenario</source>
        <translation>無法儲存情境</translation>
    </message>
    <message>
        <source>VRAM Lab scenario (*{suffix});;JSON (*.json)</source>
        <translation>VRAM Lab 情境檔 (*{suffix});;JSON (*.json)</translation>
    </message>
</context>
<context>
    <name>ScenarioHistory</name>
    <message>
        <source>&amp;Undo import of {name}</source>
        <translation>復原匯入 {name}(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Undo opening {name}</source>
        <translation>復原開啟 {name}(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Undo reset to defaults</source>
        <translation>復原「恢復預設值」(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Undo model from {name}</source>
        <translation>復原從 {name} 匯入的模型(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Undo the start of lesson {name}</source>
        <translation>復原「開始第 {name} 課」(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo import of {name}</source>
        <translation>重做匯入 {name}(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Redo opening {name}</source>
        <translation>重做開啟 {name}(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Redo reset to defaults</source>
        <translation>重做「恢復預設值」(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Redo model from {name}</source>
        <translation>重做從 {name} 匯入的模型(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Redo the start of lesson {name}</source>
        <translation>重做「開始第 {name} 課」(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>復原(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
</context>
<context>
    <name>ScenarioSummary</name>
    <message>
        <source>For your setup: {model}, {method}, {precision}, {optimizer}, batch {batch} × {seq} tokens, {attention}, {ckpt}, {gpus} × {gpu}{sharding}</source>
        <translation>你的設定：{model}，{method}，{precision}，{optimizer}，batch {batch} × {seq} 個 token，{attention}，{ckpt}，{gpus} × {gpu}{sharding}</translation>
    </message>
    <message>
        <source>, activations offloaded</source>
        <translation>，激活值卸載</translation>
    </message>
</context>
<context>
    <name>SentenceBox</name>
    <message>
        <source>Type a sentence of up to {n} words</source>
        <translation>輸入一句最多 {n} 個字詞的句子</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>計算</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
</context>
<context>
    <name>ServingControls</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>KV cache dtype</source>
        <translation>KV cache 資料型別</translation>
    </message>
    <message>
        <source>model dtype (auto)</source>
        <translation>模型精度（auto）</translation>
    </message>
    <message>
        <source>vLLM default</source>
        <translation>vLLM 預設</translation>
    </message>
    <message>
        <source>Eager mode: no CUDA graphs (--enforce-eager)</source>
        <translation>Eager 模式：不擷取 CUDA Graphs，即 vLLM 的參數（--enforce-eager）</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>權重</translation>
    </message>
    <message>
        <source>Max batched tokens</source>
        <translation>每批最多 token 數</translation>
    </message>
    <message>
        <source>Max sequences</source>
        <translation>最多同時序列數</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>上下文長度</translation>
    </message>
    <message>
        <source>Concurrent sequences</source>
        <translation>併發序列數</translation>
    </message>
    <message>
        <source>Tensor-parallel GPUs</source>
        <translation>張量平行 GPU 數</translation>
    </message>
    <message>
        <source>Pipeline-parallel GPUs</source>
        <translation>管線平行 GPU 數</translation>
    </message>
    <message>
        <source>GPU memory utilization</source>
        <translation>GPU 記憶體使用比例</translation>
    </message>
    <message>
        <source>{n:,} tokens</source>
        <translation>{n:,} token</translation>
    </message>
    <message>
        <source>{n:,} sequences</source>
        <translation>{n:,} 條序列</translation>
    </message>
    <message>
        <source>1 sequence</source>
        <translation>1 條序列</translation>
    </message>
    <message>
        <source>{n} GPUs</source>
        <translation>{n} 張 GPU</translation>
    </message>
    <message>
        <source>1 GPU</source>
        <translation>1 張 GPU</translation>
    </message>
</context>
<context>
    <name>ServingPage</name>
    <message>
        <source>At inference every generated token leaves its keys and values behind, in every layer. With many users at once, this KV cache, not the weights, is what fills the GPU.</source>
        <translation>推論時，每個生成過的 token 都要在每一層留下 K 和 V。併發一多，佔滿 GPU 的往往是這個 KV cache，而不是權重。</translation>
    </message>
    <message>
        <source>KV cache per sequence</source>
        <translation>每條序列的 KV cache</translation>
    </message>
    <message>
        <source>2 × layers × KV heads × head dim × tokens × bytes per element, per sequence (GB: 10⁹ bytes).</source>
        <translation>2 × 層數 × KV head 數 × head 維度 × token 數 × 每個元素的位元組，每條序列（GB：10⁹ 位元組）。</translation>
    </message>
    <message>
        <source>What vLLM will allocate</source>
        <translation>vLLM 會配置的記憶體</translation>
    </message>
    <message>
        <source>vLLM profiles one dummy batch at start-up, then gives the KV cache what is left of its budget (the memory the driver reports × gpu_memory_utilization) after the weights, the activation peak and the memory outside PyTorch. CUDA graphs are captured after, from the headroom.</source>
        <translation>vLLM 啟動時先用一個假批次量測記憶體，再把預算（驅動程式回報的記憶體 × gpu_memory_utilization）扣掉權重、激活值峰值和 PyTorch 以外的記憶體，剩下的全給 KV cache。CUDA Graphs 之後才擷取，用的是預算外的餘裕。</translation>
    </message>
    <message>
        <source>What vLLM will log</source>
        <translation>vLLM 會印出的日誌</translation>
    </message>
    <message>
        <source>MLA against GQA</source>
        <translation>MLA 對 GQA</translation>
    </message>
    <message>
        <source>Paged allocation</source>
        <translation>分頁配置</translation>
    </message>
    <message>
        <source>The same requests, reserved at the maximum length or handed 16-token blocks as they grow (PagedAttention, vLLM). A pool of {n} blocks; requests shaped like ShareGPT conversations.</source>
        <translation>同一批請求，一種按最大長度預留，一種隨長度成長配發 16 個 token 的區塊（PagedAttention，vLLM）。區塊池共 {n} 個；請求的長度分布仿照 ShareGPT 對話。</translation>
    </message>
    <message>
        <source>{n:,} requested</source>
        <translation>要求 {n:,} 條</translation>
    </message>
    <message>
        <source>{n:,} that fit</source>
        <translation>放得下 {n:,} 條</translation>
    </message>
    <message>
        <source>vLLM&apos;s cache</source>
        <translation>vLLM 的 cache</translation>
    </message>
    <message>
        <source>GPU memory (as the driver reports it)</source>
        <translation>GPU 記憶體（驅動程式回報值）</translation>
    </message>
    <message>
        <source>vLLM&apos;s budget ({u:.0%})</source>
        <translation>vLLM 的預算（{u:.0%}）</translation>
    </message>
    <message>
        <source>vLLM {version} ({engine} engine) will print these lines at start-up (times are not predicted):</source>
        <translation>vLLM {version}（{engine} 引擎）啟動時會印出這幾行（時間不預測）：</translation>
    </message>
    <message>
        <source>&lt;b&gt;vLLM would not start:&lt;/b&gt; {why}</source>
        <translation>&lt;b&gt;vLLM 無法啟動：&lt;/b&gt;{why}</translation>
    </message>
    <message>
        <source>&lt;b&gt;The weights alone overflow:&lt;/b&gt; {w} per GPU of {b} in vLLM&apos;s budget. Add GPUs or quantize.</source>
        <translation>&lt;b&gt;光是權重就放不下：&lt;/b&gt;每張 GPU 要 {w}，vLLM 的預算只有 {b}。請加 GPU 或量化。</translation>
    </message>
    <message>
        <source>on {n} × {gpu}</source>
        <translation>在 {n} × {gpu} 上</translation>
    </message>
    <message>
        <source>&lt;b&gt;vLLM will hold {tokens:,} tokens in its KV cache&lt;/b&gt; {where}, {kv} per GPU: at most {max:,} sequences of {t:,} tokens at once ({per} of KV cache each). {verdict}</source>
        <translation>&lt;b&gt;vLLM 的 KV cache 可容納 {tokens:,} 個 token&lt;/b&gt;（{where}，每張 GPU {kv}）：最多同時 {max:,} 條 {t:,} 個 token 的序列（每條 KV cache {per}）。{verdict}</translation>
    </message>
    <message>
        <source>The {n:,} requested fit.</source>
        <translation>要求的 {n:,} 條放得下。</translation>
    </message>
    <message>
        <source>The {n:,} requested do not fit.</source>
        <translation>要求的 {n:,} 條放不下。</translation>
    </message>
    <message>
        <source>on one {gpu}</source>
        <translation>在一張 {gpu} 上</translation>
    </message>
</context>
<context>
    <name>SnapshotOpen</name>
    <message>
        <source>PyTorch memory snapshots</source>
        <translation>PyTorch 記憶體快照</translation>
    </message>
    <message>
        <source>All files</source>
        <translation>所有檔案</translation>
    </message>
    <message>
        <source>Open PyTorch snapshot</source>
        <translation>開啟 PyTorch 快照</translation>
    </message>
</context>
<context>
    <name>StageBars</name>
    <message>
        <source> + {bytes} on the vLLM server</source>
        <translation> + vLLM 伺服器上 {bytes}</translation>
    </message>
    <message>
        <source>{unit} per GPU · dashed line: {gpu}</source>
        <translation>每張 GPU 的 {unit} · 虛線：{gpu}</translation>
    </message>
</context>
<context>
    <name>StageDiagram</name>
    <message>
        <source>policy&apos;s weights</source>
        <translation>策略模型的權重</translation>
    </message>
    <message>
        <source>no GPU memory</source>
        <translation>不佔 GPU 記憶體</translation>
    </message>
    <message>
        <source>{bytes} on its own GPUs</source>
        <translation>自己的 GPU 上 {bytes}</translation>
    </message>
    <message>
        <source>trained</source>
        <translation>要訓練</translation>
    </message>
    <message>
        <source>frozen (inference only)</source>
        <translation>凍結（只做推論）</translation>
    </message>
    <message>
        <source>can be a program rather than a model</source>
        <translation>可以是程式規則，不一定是模型</translation>
    </message>
</context>
<context>
    <name>StepCaption</name>
    <message>
        <source>{i}. {name}</source>
        <translation>{i}. {name}</translation>
    </message>
</context>
<context>
    <name>TimelineChart</name>
    <message>
        <source>Step {n}</source>
        <translation>第 {n} 步</translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation>優化器更新</translation>
    </message>
</context>
<context>
    <name>TimelineControls</name>
    <message>
        <source>Open PyTorch snapshot…</source>
        <translation>開啟 PyTorch 快照…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Reset alignment</source>
        <translation>重設對齊</translation>
    </message>
    <message>
        <source>none (start at step 2)</source>
        <translation>無（從第 2 步開始）</translation>
    </message>
    <message>
        <source> steps</source>
        <translation> 步</translation>
    </message>
    <message>
        <source>Predicted peak</source>
        <translation>預測尖峰</translation>
    </message>
    <message>
        <source>Your PyTorch snapshot</source>
        <translation>你的 PyTorch 快照</translation>
    </message>
    <message>
        <source>Measured step drawn as step 1</source>
        <translation>畫在第 1 步的實測步驟</translation>
    </message>
    <message>
        <source>Shift</source>
        <translation>平移</translation>
    </message>
    <message>
        <source>Stretch</source>
        <translation>伸縮</translation>
    </message>
    <message>
        <source>predicted</source>
        <translation>預測</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>實測</translation>
    </message>
    <message>
        <source>Measured: the blocks live at the measured peak, attributed to terms from their stack frames.</source>
        <translation>實測：實測尖峰時仍存活的區塊，依堆疊框架歸到各項。</translation>
    </message>
    <message>
        <source>Record two training steps with torch.cuda.memory._record_memory_history(), save them with _dump_snapshot(), then open the file here or drop it on the window (docs/snapshot.md). Its allocated and reserved curves are laid over the prediction.</source>
        <translation>用 torch.cuda.memory._record_memory_history() 錄下兩個訓練步驟，以 _dump_snapshot() 存檔，再在這裡開啟，或直接把檔案拖到視窗上（docs/snapshot.md）。它的已配置與保留量曲線會疊在預測上。</translation>
    </message>
</context>
<context>
    <name>TimelineKey</name>
    <message>
        <source>reserved (predicted)</source>
        <translation>保留量（預測）</translation>
    </message>
    <message>
        <source>measured: allocated</source>
        <translation>實測：已配置</translation>
    </message>
    <message>
        <source>measured: reserved</source>
        <translation>實測：保留量</translation>
    </message>
</context>
<context>
    <name>TimelinePage</name>
    <message>
        <source>Largest blocks live at the measured peak</source>
        <translation>實測尖峰時最大的存活區塊</translation>
    </message>
    <message>
        <source>What a training step should hold, moment by moment: steps 1 and 2 layer by layer (forward, the loss, backward, the optimizer step), stacked by term, from the same model as the estimate; the highest point is the estimate&apos;s allocated peak. Open a snapshot of your own run to lay what PyTorch measured over it.</source>
        <translation>一個訓練步驟在每個時刻應該佔多少記憶體：第 1、2 步逐層展開（前向、損失、反向、優化器更新），依項目堆疊，和估算用的是同一個模型；最高點就是估算的已配置尖峰。開啟你自己訓練時錄下的快照，就能把 PyTorch 實測的結果疊上去。</translation>
    </message>
    <message>
        <source>The page keeps what it showed.</source>
        <translation>頁面維持原本顯示的內容。</translation>
    </message>
    <message>
        <source>Could not open the snapshot</source>
        <translation>無法開啟快照</translation>
    </message>
    <message>
        <source>logits and loss</source>
        <translation>輸出分數與損失</translation>
    </message>
    <message>
        <source>the loss&apos;s gradients</source>
        <translation>損失的梯度</translation>
    </message>
    <message>
        <source>every gradient made</source>
        <translation>所有梯度都已產生</translation>
    </message>
    <message>
        <source>Step {n}</source>
        <translation>第 {n} 步</translation>
    </message>
    <message>
        <source>layer {n} of {total}</source>
        <translation>第 {n} 層（共 {total} 層）</translation>
    </message>
    <message>
        <source>{b} allocated (predicted)</source>
        <translation>已配置 {b}（預測）</translation>
    </message>
    <message>
        <source>Measured: {a} allocated, {r} reserved (after event {e})</source>
        <translation>實測：已配置 {a}，保留 {r}（事件 {e} 之後）</translation>
    </message>
    <message>
        <source> (step {n}, {phase})</source>
        <translation>（第 {n} 步，{phase}）</translation>
    </message>
    <message>
        <source>Measured peak &lt;b&gt;{m}&lt;/b&gt;{held} against &lt;b&gt;{p}&lt;/b&gt; predicted: &lt;b&gt;&lt;span style=&quot;color:{color}&quot;&gt;{diff}{share}&lt;/span&gt;&lt;/b&gt;</source>
        <translation>實測尖峰 &lt;b&gt;{m}&lt;/b&gt;{held}，預測 &lt;b&gt;{p}&lt;/b&gt;：&lt;b&gt;&lt;span style=&quot;color:{color}&quot;&gt;{diff}{share}&lt;/span&gt;&lt;/b&gt;</translation>
    </message>
    <message>
        <source>{file}: device {device}, {events} events, {steps} training steps found</source>
        <translation>{file}：裝置 {device}，{events} 個事件，找到 {steps} 個訓練步驟</translation>
    </message>
    <message>
        <source>No training step was found in its frames: the recording is spread over both steps.</source>
        <translation>堆疊框架裡找不到訓練步驟：整段記錄平均攤在兩步上。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>無</translation>
    </message>
    <message>
        <source>Drawn over step 1: measured step {a}; over step 2: measured step {b}.</source>
        <translation>畫在第 1 步的是實測第 {a} 步；畫在第 2 步的是實測第 {b} 步。</translation>
    </message>
</context>
<context>
    <name>_Advanced</name>
    <message>
        <source>Advanced: vLLM release</source>
        <translation>進階：vLLM 版本</translation>
    </message>
    <message>
        <source>the release&apos;s default</source>
        <translation>該版本的預設</translation>
    </message>
    <message>
        <source>vLLM version</source>
        <translation>vLLM 版本</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>引擎</translation>
    </message>
</context>
<context>
    <name>choices</name>
    <message>
        <source>Full</source>
        <translation>全參數</translation>
    </message>
    <message>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <source>QLoRA</source>
        <translation>QLoRA</translation>
    </message>
    <message>
        <source>LoRA 8-bit</source>
        <translation>8-bit LoRA</translation>
    </message>
    <message>
        <source>Freeze</source>
        <translation>凍結微調</translation>
    </message>
    <message>
        <source>BAdam</source>
        <translation>BAdam</translation>
    </message>
    <message>
        <source>OFT</source>
        <translation>OFT</translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation>AdamW</translation>
    </message>
    <message>
        <source>AdamW 8-bit</source>
        <translation>8-bit AdamW</translation>
    </message>
    <message>
        <source>Paged AdamW 8-bit</source>
        <translation>分頁式 8-bit AdamW</translation>
    </message>
    <message>
        <source>Paged AdamW (32-bit)</source>
        <translation>分頁式 32-bit AdamW</translation>
    </message>
    <message>
        <source>Adafactor</source>
        <translation>Adafactor</translation>
    </message>
    <message>
        <source>Lion</source>
        <translation>Lion</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation>SGD（含動量）</translation>
    </message>
    <message>
        <source>AdamW 4-bit (torchao)</source>
        <translation>4-bit AdamW（TorchAO）</translation>
    </message>
    <message>
        <source>AdamW 8-bit (torchao)</source>
        <translation>8-bit AdamW（TorchAO）</translation>
    </message>
    <message>
        <source>RMSprop</source>
        <translation>RMSprop</translation>
    </message>
    <message>
        <source>RMSprop with momentum</source>
        <translation>RMSprop（含動量）</translation>
    </message>
    <message>
        <source>Muon (+ AdamW)</source>
        <translation>Muon（+ AdamW）</translation>
    </message>
    <message>
        <source>GaLore AdamW</source>
        <translation>GaLore AdamW</translation>
    </message>
    <message>
        <source>APOLLO AdamW</source>
        <translation>APOLLO AdamW</translation>
    </message>
    <message>
        <source>Adam-mini</source>
        <translation>精簡 Adam（Adam-mini）</translation>
    </message>
    <message>
        <source>eager attention</source>
        <translation>Eager 注意力</translation>
    </message>
    <message>
        <source>SDPA attention</source>
        <translation>SDPA 注意力</translation>
    </message>
    <message>
        <source>FlashAttention 2</source>
        <translation>FlashAttention 2</translation>
    </message>
    <message>
        <source>no checkpointing</source>
        <translation>不做梯度檢查點</translation>
    </message>
    <message>
        <source>full checkpointing</source>
        <translation>完整梯度檢查點</translation>
    </message>
    <message>
        <source>selective checkpointing</source>
        <translation>選擇性梯度檢查點</translation>
    </message>
    <message>
        <source>per-operator selective checkpointing</source>
        <translation>以運算子為單位的選擇性梯度檢查點</translation>
    </message>
    <message>
        <source>data parallel</source>
        <translation>資料平行</translation>
    </message>
    <message>
        <source>ZeRO-1</source>
        <translation>ZeRO-1</translation>
    </message>
    <message>
        <source>ZeRO-2</source>
        <translation>ZeRO-2</translation>
    </message>
    <message>
        <source>ZeRO-3</source>
        <translation>ZeRO-3</translation>
    </message>
    <message>
        <source>standard loss</source>
        <translation>標準損失</translation>
    </message>
    <message>
        <source>chunked loss</source>
        <translation>分塊損失</translation>
    </message>
    <message>
        <source>chunked output and loss</source>
        <translation>分塊輸出層與損失</translation>
    </message>
    <message>
        <source>fused linear cross-entropy</source>
        <translation>合併的線性層與交叉熵</translation>
    </message>
    <message>
        <source>chunked loss with its backward per chunk</source>
        <translation>分塊損失（每塊在前向傳播中即時反向傳播）</translation>
    </message>
    <message>
        <source>Hugging Face Trainer</source>
        <translation>Hugging Face Trainer</translation>
    </message>
    <message>
        <source>fused</source>
        <translation>融合（fused）</translation>
    </message>
    <message>
        <source>foreach</source>
        <translation>整批（foreach）</translation>
    </message>
    <message>
        <source>for-loop</source>
        <translation>逐一（for-loop）</translation>
    </message>
    <message>
        <source>stack&apos;s own ({impl})</source>
        <translation>框架預設（{impl}）</translation>
    </message>
    <message>
        <source>torchtune</source>
        <translation>微調函式庫（torchtune）</translation>
    </message>
    <message>
        <source>torchtitan</source>
        <translation>預訓練平台（torchtitan）</translation>
    </message>
    <message>
        <source>LitGPT</source>
        <translation>LitGPT（Lightning AI）</translation>
    </message>
    <message>
        <source>Megatron-LM / NeMo</source>
        <translation>Megatron-LM／NeMo</translation>
    </message>
</context>
<context>
    <name>engine</name>
    <message>
        <source>Token embeddings</source>
        <translation>Token 嵌入</translation>
    </message>
    <message>
        <source>Each token becomes a row of numbers. This is the layer&apos;s input; every head reads all of it.</source>
        <translation>每個 token 變成一列數字。這是這一層的輸入，每個 head 都會讀完整份。</translation>
    </message>
    <message>
        <source>Queries</source>
        <translation>Query</translation>
    </message>
    <message>
        <source>Each token asks a question: what am I looking for? A learned matrix Wq turns its row into a query.</source>
        <translation>每個 token 提出一個問題：我在找什麼？學出來的矩陣 Wq 把它那一列變成 query。</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>Key</translation>
    </message>
    <message>
        <source>Each token also advertises what it contains: its key, made by another learned matrix Wk.</source>
        <translation>每個 token 也標示自己有什麼內容：這是它的 key，由另一個學出來的矩陣 Wk 產生。</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>Value</translation>
    </message>
    <message>
        <source>And what it will hand over if chosen: its value, made by a third matrix Wv.</source>
        <translation>還有被選中時要交出去的東西：它的 value，由第三個矩陣 Wv 產生。</translation>
    </message>
    <message>
        <source>Scores</source>
        <translation>分數</translation>
    </message>
    <message>
        <source>Every query meets every key: one number per pair, so s tokens make an s × s matrix. This is the tensor that grows with the square of the length.</source>
        <translation>每個 query 和每個 key 配對：一對一個數字，所以 s 個 token 會產生 s × s 的矩陣。這就是隨長度平方成長的張量。</translation>
    </message>
    <message>
        <source>Causal mask</source>
        <translation>因果遮罩</translation>
    </message>
    <message>
        <source>A token may not look ahead: every cell above the diagonal becomes minus infinity.</source>
        <translation>token 不能偷看後面：對角線以上的每一格都變成負無限大。</translation>
    </message>
    <message>
        <source>Softmax by row</source>
        <translation>逐列 Softmax</translation>
    </message>
    <message>
        <source>Each row becomes weights that sum to 1; the masked cells become exactly 0. Training keeps this s × s matrix for the backward pass.</source>
        <translation>每一列變成總和為 1 的權重；被遮罩的格子剛好變成 0。訓練時要把這個 s × s 矩陣留到反向傳播。</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>輸出</translation>
    </message>
    <message>
        <source>Each token&apos;s output is a weighted average of the values it may see. FlashAttention computes this in tiles and never writes the s × s matrix to memory.</source>
        <translation>每個 token 的輸出是它看得到的 value 的加權平均。FlashAttention 分塊計算，從不把 s × s 矩陣寫進記憶體。</translation>
    </message>
    <message>
        <source>Prompt / answer pairs teach the model a format and a task; one model trains.</source>
        <translation>用 prompt／回答配對教模型格式和任務；只有一個模型在訓練。</translation>
    </message>
    <message>
        <source>Supervised fine-tuning, the step before preference learning.</source>
        <translation>監督式微調，偏好學習之前的那一步。</translation>
    </message>
    <message>
        <source>No reward model and no sampling: the loss is computed directly on (better, worse) answer pairs.</source>
        <translation>不需要獎勵模型、也不需要取樣：直接拿「較好／較差」的回答配對算損失。</translation>
    </message>
    <message>
        <source>The reward is implicit in the policy / reference log-probability ratio.</source>
        <translation>獎勵隱含在策略模型／參考模型的對數機率比值裡。</translation>
    </message>
    <message>
        <source>The frozen reference is part of the loss.</source>
        <translation>凍結的參考模型是損失的一部分。</translation>
    </message>
    <message>
        <source>Without it nothing holds the policy near the SFT model it starts from.</source>
        <translation>少了它，就沒有東西讓策略模型留在出發時的 SFT 模型附近。</translation>
    </message>
    <message>
        <source>A small learning rate, about 5e-7, for 1 to 2 epochs.</source>
        <translation>學習率很小（約 5e-7），1–2 輪。</translation>
    </message>
    <message>
        <source>Zephyr-7B-beta&apos;s DPO recipe uses 5e-7 for one epoch; the DPO paper&apos;s own default is 1e-6 with RMSprop.</source>
        <translation>Zephyr-7B-beta 的 DPO 設定用 5e-7、一輪；DPO 論文自己的預設是 1e-6 搭配 RMSprop。</translation>
    </message>
    <message>
        <source>Four models: policy and critic trained, reference and reward model frozen.</source>
        <translation>四個模型：要訓練的策略模型和價值模型，加上凍結的參考模型與獎勵模型。</translation>
    </message>
    <message>
        <source>The classic RLHF recipe; the most flexible, and the hungriest and hardest to tune.</source>
        <translation>RLHF 經典做法；最有彈性，也最吃記憶體、最難調。</translation>
    </message>
    <message>
        <source>The critic is as large as the model it judges.</source>
        <translation>價值模型和它評分的模型一樣大。</translation>
    </message>
    <message>
        <source>InstructGPT initialises its value function from its 6B reward model.</source>
        <translation>InstructGPT 用它的 6B 獎勵模型初始化價值函數。</translation>
    </message>
    <message>
        <source>Removes the critic, not the reward.</source>
        <translation>拿掉的是價值模型，不是獎勵。</translation>
    </message>
    <message>
        <source>The baseline is the group&apos;s mean reward instead of a learned value.</source>
        <translation>基準是組內的平均獎勵，而不是學出來的價值。</translation>
    </message>
    <message>
        <source>Samples a group of answers per prompt and normalises each reward by the group&apos;s mean and standard deviation: that is the advantage.</source>
        <translation>每個 prompt 取樣一組回答，用組內平均和標準差把每個獎勵標準化：這就是優勢值。</translation>
    </message>
    <message>
        <source>DeepSeekMath samples 64 outputs per question, with a KL coefficient of 0.04.</source>
        <translation>DeepSeekMath 每題取樣 64 個輸出，KL 係數 0.04。</translation>
    </message>
    <message>
        <source>The reward is often a verifiable rule: unit tests, matching a math answer (RLVR).</source>
        <translation>獎勵常是可驗證的規則，例如單元測試、數學答案比對（RLVR）。</translation>
    </message>
    <message>
        <source>Used by DeepSeekMath&apos;s successors (DeepSeek-R1) for reasoning; a reward model works too.</source>
        <translation>DeepSeekMath 的後繼者（DeepSeek-R1）用在推理上；用獎勵模型也可以。</translation>
    </message>
    <message>
        <source>prompt + answer</source>
        <translation>prompt + 回答</translation>
    </message>
    <message>
        <source>log-probs</source>
        <translation>對數機率</translation>
    </message>
    <message>
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>chosen + rejected</source>
        <translation>較佳 + 較差回答</translation>
    </message>
    <message>
        <source>prompts</source>
        <translation>prompt</translation>
    </message>
    <message>
        <source>samples</source>
        <translation>樣本</translation>
    </message>
    <message>
        <source>rewards</source>
        <translation>獎勵</translation>
    </message>
    <message>
        <source>log-probs (KL)</source>
        <translation>對數機率（KL）</translation>
    </message>
    <message>
        <source>values</source>
        <translation>價值</translation>
    </message>
    <message>
        <source>advantages</source>
        <translation>優勢值</translation>
    </message>
    <message>
        <source>returns</source>
        <translation>回報</translation>
    </message>
    <message>
        <source>G samples</source>
        <translation>G 個樣本</translation>
    </message>
    <message>
        <source>the share does not hold the weights: the engine cannot start</source>
        <translation>這個比例放不下權重：引擎無法啟動</translation>
    </message>
    <message>
        <source>the generation batch&apos;s KV cache is larger than the share leaves: vLLM samples it in turns (slower)</source>
        <translation>生成批次的 KV cache 超過比例剩下的容量：vLLM 會分批取樣（較慢）</translation>
    </message>
    <message>
        <source>{value} is not a run on NVIDIA or AMD GPUs that VRAM Lab costs</source>
        <translation>{value} 不是 VRAM Lab 會估算的 NVIDIA 或 AMD GPU 訓練</translation>
    </message>
    <message>
        <source>{value}-way {kind} parallelism is not costed</source>
        <translation>未估算 {value} 路的 {kind} 平行</translation>
    </message>
    <message>
        <source>distributed_type NO runs one process</source>
        <translation>distributed_type NO 只執行一個行程</translation>
    </message>
    <message>
        <source>{value} training is not costed (bf16 and fp16 are)</source>
        <translation>未估算 {value} 訓練（bf16 與 fp16 有估算）</translation>
    </message>
    <message>
        <source>{value} is not a ZeRO stage (0, 1, 2 or 3)</source>
        <translation>{value} 不是 ZeRO 階段（0、1、2 或 3）</translation>
    </message>
    <message>
        <source>a GPTQ-quantized base is not a method VRAM Lab costs</source>
        <translation>GPTQ 量化的基底不是 VRAM Lab 會估算的方法</translation>
    </message>
    <message>
        <source>the {value} adapter is not a method VRAM Lab costs (LoRA and QLoRA are)</source>
        <translation>{value} adapter 不是 VRAM Lab 會估算的方法（LoRA 與 QLoRA 才是）</translation>
    </message>
    <message>
        <source>{value} is not a gradient checkpointing mode of Axolotl (true, false, offload, offload_disk)</source>
        <translation>{value} 不是 Axolotl 的梯度檢查點模式（true、false、offload、offload_disk）</translation>
    </message>
    <message>
        <source>{value} checkpoints each layer and moves the one tensor it keeps, the layer&apos;s input, to host RAM (Unsloth&apos;s offloaded checkpointing); costed as full checkpointing with activation offloading</source>
        <translation>{value} 對每一層做梯度檢查點，並把它唯一保留的張量（該層的輸入）移到主機記憶體（Unsloth 的卸載式梯度檢查點）；以完整的梯度檢查點加上激活值卸載估算</translation>
    </message>
    <message>
        <source>{value} checkpoints each layer and moves the one tensor it keeps, the layer&apos;s input, to disk; costed as full checkpointing with activation offloading to host RAM</source>
        <translation>{value} 對每一層做梯度檢查點，並把它唯一保留的張量（該層的輸入）移到磁碟；以完整的梯度檢查點加上把激活值卸載到主機記憶體估算</translation>
    </message>
    <message>
        <source>Axolotl quantizes to 4 bits only with adapter: qlora; costed as LoRA on a 16-bit base</source>
        <translation>Axolotl 只有在 adapter: qlora 時才量化到 4 位元；以 16 位元基底上的 LoRA 估算</translation>
    </message>
    <message>
        <source>it lowers memory in a way VRAM Lab does not model; the estimate is an upper bound</source>
        <translation>它以 VRAM Lab 沒有模擬的方式降低記憶體用量；估算值為上限</translation>
    </message>
    <message>
        <source>pure fp16 training holds weights, gradients and optimizer states in 16 bits, as pure bf16 does; costed as bf16</source>
        <translation>純 fp16 訓練和純 bf16 一樣，以 16 位元存放權重、梯度與優化器狀態；以 bf16 估算</translation>
    </message>
    <message>
        <source>full fine-tuning of fp16 weights is not costed (fp16 training keeps fp32 master weights only under DeepSpeed)</source>
        <translation>未估算 fp16 權重的全參數微調（只有在 DeepSpeed 下，fp16 訓練才會保留 fp32 主權重）</translation>
    </message>
    <message>
        <source>packing fills each sequence to the maximum length, which the estimate costs anyway</source>
        <translation>packing 會把每條序列填滿到最大長度，估算本來就以最大長度計算</translation>
    </message>
    <message>
        <source>the global batch; memory depends on the micro-batch (micro_batch_size)</source>
        <translation>這是全域批次；記憶體取決於微批次（micro_batch_size）</translation>
    </message>
    <message>
        <source>{value} is not a whole number of at least {least}</source>
        <translation>{value} 不是大於或等於 {least} 的整數</translation>
    </message>
    <message>
        <source>{value} is not a number between 0 and 1</source>
        <translation>{value} 不是 0 到 1 之間的數</translation>
    </message>
    <message>
        <source>{value} is not an optimizer VRAM Lab can cost</source>
        <translation>{value} 不是 VRAM Lab 能估算的優化器</translation>
    </message>
    <message>
        <source>{value} keeps two 8-bit states with an fp32 scale per block, like bitsandbytes&apos; 8-bit AdamW; costed as adamw-8bit</source>
        <translation>{value} 和 bitsandbytes 的 8-bit AdamW 一樣，保留兩個 8 位元狀態，每個區塊一個 fp32 縮放係數；以 adamw-8bit 估算</translation>
    </message>
    <message>
        <source>{value} is not an attention implementation VRAM Lab knows; costed as sdpa, which keeps no score matrix</source>
        <translation>{value} 不是 VRAM Lab 認得的注意力實作；以不保留分數矩陣的 sdpa 估算</translation>
    </message>
    <message>
        <source>{value} keeps no score matrix either; costed as {used}</source>
        <translation>{value} 同樣不保留分數矩陣；以 {used} 估算</translation>
    </message>
    <message>
        <source>LoRA on {value} is not one of the target sets VRAM Lab costs (qv, attention, qvo-mlp, all-linear); costed as {used}, the smallest that holds it, so the estimate is an upper bound</source>
        <translation>套用在 {value} 的 LoRA 不屬於 VRAM Lab 估算的套用層組合（qv、attention、qvo-mlp、all-linear）；以涵蓋它的最小組合 {used} 估算，所以估算值為上限</translation>
    </message>
    <message>
        <source>LoRA on {value} is not costed (only the attention and MLP projections are); costed as {used}</source>
        <translation>未估算套用在 {value} 的 LoRA（只估算注意力與 MLP 的投影層）；以 {used} 估算</translation>
    </message>
    <message>
        <source>{value} names no attention or MLP projection VRAM Lab can cost</source>
        <translation>{value} 沒有指出任何 VRAM Lab 能估算的注意力或 MLP 投影層</translation>
    </message>
    <message>
        <source>{value} are trained in full beside the adapters, with gradients and optimizer states VRAM Lab does not count</source>
        <translation>{value} 會在 adapter 之外整個一起訓練，它們的梯度與優化器狀態 VRAM Lab 沒有計入</translation>
    </message>
    <message>
        <source>only part of the model is trained; the estimate trains all of it, an upper bound</source>
        <translation>只訓練模型的一部分；估算值把整個模型都當成要訓練，為上限</translation>
    </message>
    <message>
        <source>{value} copies of the model, each sharded over its own GPUs; costed as sharded over all the GPUs given, which understates it (give the GPUs of one copy with --gpus)</source>
        <translation>模型有 {value} 份副本，各自分片到自己的 GPU 上；以分片到所有給定的 GPU 估算，會低估（用 --gpus 給一份副本的 GPU 數）</translation>
    </message>
    <message>
        <source>{value} is not an alignment method VRAM Lab knows (DPO, IPO, ORPO, SimPO, CPO, KTO, PPO, GRPO, RLOO, reward modelling)</source>
        <translation>{value} 不是 VRAM Lab 認得的對齊方法（DPO、IPO、ORPO、SimPO、CPO、KTO、PPO、GRPO、RLOO、獎勵模型訓練）</translation>
    </message>
    <message>
        <source>a base loaded in 8 bits is costed with LoRA on it (--method lora-8bit), not trained in full or as QLoRA</source>
        <translation>以 8 位元載入的基底只在其上加 LoRA 時估算（--method lora-8bit），不估算全參數訓練或 QLoRA</translation>
    </message>
    <message>
        <source>DoRA is costed on LoRA over a 16-bit base (--dora), not on a quantized one</source>
        <translation>DoRA 只在 16 位元基底上的 LoRA 估算（--dora），不估算量化基底上的</translation>
    </message>
    <message>
        <source>{value} computes the output layer and the loss chunk by chunk, so no tensor of the vocabulary&apos;s size is whole; costed as fused-linear-ce (Liger&apos;s)</source>
        <translation>{value} 分塊計算輸出層與損失，所以沒有任何詞彙表大小的張量是完整的；以 fused-linear-ce（Liger 的做法）估算</translation>
    </message>
    <message>
        <source>{value} moves saved activations off the GPU; costed as offloading them to host RAM</source>
        <translation>{value} 會把保存的激活值移出 GPU；以卸載到主機記憶體估算</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s activation checkpointing serves Megatron-style models; Hugging Face models use gradient_checkpointing</source>
        <translation>DeepSpeed 的 activation checkpointing 是給 Megatron 式模型用的；Hugging Face 模型用 gradient_checkpointing</translation>
    </message>
    <message>
        <source>not a training config of Axolotl, LLaMA-Factory, torchtune, torchtitan, TRL, DeepSpeed or accelerate (none of their keys is in it)</source>
        <translation>不是 Axolotl、LLaMA-Factory、torchtune、torchtitan、TRL、DeepSpeed 或 accelerate 的訓練設定檔（裡面沒有它們的任何鍵）</translation>
    </message>
    <message>
        <source>a model&apos;s config.json, not a training config; give it with --config</source>
        <translation>這是模型的 config.json，不是訓練設定檔；請用 --config 指定</translation>
    </message>
    <message>
        <source>{value} shards within each machine and replicates across machines; costed as {used} over the GPUs given (give the GPUs of one machine)</source>
        <translation>{value} 在每台機器內分片、跨機器複製；以 {used} 分散在給定的 GPU 上估算（請給一台機器的 GPU 數）</translation>
    </message>
    <message>
        <source>{value} is not an FSDP sharding strategy</source>
        <translation>{value} 不是 FSDP 的分片策略</translation>
    </message>
    <message>
        <source>{value} was not found beside the config; give it with another --from-config to use it</source>
        <translation>在設定檔旁找不到 {value}；要使用它，請再用一個 --from-config 指定</translation>
    </message>
    <message>
        <source>{value} was not found beside the config; the content its tool ships is assumed</source>
        <translation>在設定檔旁找不到 {value}；假設為工具隨附的內容</translation>
    </message>
    <message>
        <source>no config file given</source>
        <translation>沒有給任何設定檔</translation>
    </message>
    <message>
        <source>{value} fine-tuning in this form is not costed (freeze: whole layers with every module; oft: by block size)</source>
        <translation>未估算這種形式的 {value} 微調（freeze：整層、所有模組；oft：依區塊大小）</translation>
    </message>
    <message>
        <source>a base quantized to {value} bits is not costed (4-bit QLoRA and 8-bit LoRA are)</source>
        <translation>未估算量化到 {value} 位元的基底（4-bit QLoRA 與 8-bit LoRA 有估算）</translation>
    </message>
    <message>
        <source>{value} quantization is not costed (bitsandbytes 4-bit is)</source>
        <translation>未估算 {value} 量化（bitsandbytes 4-bit 有估算）</translation>
    </message>
    <message>
        <source>{value} in its layer-wise mode (or BAdam&apos;s ratio mode) is not costed</source>
        <translation>未估算 {value} 的逐層模式（或 BAdam 的比例模式）</translation>
    </message>
    <message>
        <source>{value} is costed on full fine-tuning only (LLaMA-Factory refuses GaLore, APOLLO and BAdam with LoRA)</source>
        <translation>{value} 只在全參數微調時估算（LLaMA-Factory 不接受 GaLore、APOLLO、BAdam 與 LoRA 併用）</translation>
    </message>
    <message>
        <source>not a training run (do_train is not set: an inference, evaluation or export config)</source>
        <translation>不是訓練（沒有設定 do_train：這是推論、評估或匯出的設定檔）</translation>
    </message>
    <message>
        <source>a PyTorch pickle, which is never opened because loading it runs code; export TrainingArguments.to_json_string() to a .json file and import that instead</source>
        <translation>這是 PyTorch 的 pickle，載入它會執行程式碼，所以絕不開啟；請把 TrainingArguments.to_json_string() 匯出成 .json 檔，改匯入那個檔案</translation>
    </message>
    <message>
        <source>too large for a training config ({size} bytes; the limit is {limit})</source>
        <translation>以訓練設定檔來說太大了（{size} 位元組；上限是 {limit}）</translation>
    </message>
    <message>
        <source>not valid YAML ({problem})</source>
        <translation>不是有效的 YAML（{problem}）</translation>
    </message>
    <message>
        <source>the YAML tag {tag} is not allowed: only plain YAML data is read</source>
        <translation>不允許 YAML 標籤 {tag}：只讀取純 YAML 資料</translation>
    </message>
    <message>
        <source>more than {limit} YAML aliases</source>
        <translation>YAML 別名超過 {limit} 個</translation>
    </message>
    <message>
        <source>a YAML alias inside the node it names</source>
        <translation>YAML 別名出現在它所指的節點裡</translation>
    </message>
    <message>
        <source>nested too deeply (more than {limit} levels)</source>
        <translation>巢狀太深（超過 {limit} 層）</translation>
    </message>
    <message>
        <source>more than {limit} YAML nodes, more than a training config holds</source>
        <translation>YAML 節點超過 {limit} 個，比訓練設定檔會有的還多</translation>
    </message>
    <message>
        <source>its YAML aliases expand to more than {limit} nodes (an alias bomb)</source>
        <translation>它的 YAML 別名展開後超過 {limit} 個節點（別名炸彈）</translation>
    </message>
    <message>
        <source>not a training config (its top level is {kind}, not a mapping)</source>
        <translation>不是訓練設定檔（最上層是 {kind}，不是對應表）</translation>
    </message>
    <message>
        <source>{problem}</source>
        <translation>{problem}</translation>
    </message>
    <message>
        <source>not UTF-8 text (byte {byte})</source>
        <translation>不是 UTF-8 文字（第 {byte} 個位元組）</translation>
    </message>
    <message>
        <source>not valid TOML ({problem})</source>
        <translation>不是有效的 TOML（{problem}）</translation>
    </message>
    <message>
        <source>{value} is not a model VRAM Lab knows, nor a local folder with a config.json; give the model with --model (a catalog id) or --config (its config.json)</source>
        <translation>{value} 不是 VRAM Lab 認得的模型，也不是含有 config.json 的本機資料夾；請用 --model（目錄中的 id）或 --config（它的 config.json）指定模型</translation>
    </message>
    <message>
        <source>the files name no model; give it with --model or --config</source>
        <translation>這些檔案沒有指定模型；請用 --model 或 --config 指定</translation>
    </message>
    <message>
        <source>{value} is {model}, which has {why}: VRAM Lab cannot cost that yet; give another model with --model</source>
        <translation>{value} 是 {model}，它有 {why}：VRAM Lab 還無法估算；請用 --model 指定另一個模型</translation>
    </message>
    <message>
        <source>{value} is a path on the machine the config was written for, with no config.json here; give the model with --model (a catalog id) or --config (its config.json)</source>
        <translation>{value} 是撰寫這份設定檔那台機器上的路徑，這裡沒有 config.json；請用 --model（目錄中的 id）或 --config（它的 config.json）指定模型</translation>
    </message>
    <message>
        <source>{value} is {model} quantized ahead of training ({kind}), which is not costed as its own model; give --model {id} (with --method qlora for a 4-bit bitsandbytes base) to estimate it</source>
        <translation>{value} 是事先量化過（{kind}）的 {model}，不會當成獨立的模型估算；請用 --model {id}（4-bit bitsandbytes 基礎模型再加上 --method qlora）來估算</translation>
    </message>
    <message>
        <source>not a setting the memory estimate uses</source>
        <translation>記憶體估算用不到這個設定</translation>
    </message>
    <message>
        <source>set explicitly, which overrides the file</source>
        <translation>已明確指定，蓋過檔案中的值</translation>
    </message>
    <message>
        <source>{file} already sets {field} ({value}), and the first file wins</source>
        <translation>{file} 已經設定了 {field}（{value}），以第一個檔案為準</translation>
    </message>
    <message>
        <source>choose the {field} explicitly ({flag}) to estimate it anyway</source>
        <translation>若仍要估算，請明確指定 {field}（{flag}）</translation>
    </message>
    <message>
        <source>full fine-tuning of fp16 weights with fp16 autocast cannot run (the Trainer cannot unscale fp16 gradients)</source>
        <translation>fp16 權重搭配 fp16 autocast 的全參數微調無法執行（Trainer 無法對 fp16 梯度做 unscale）</translation>
    </message>
    <message>
        <source>the imported setup is not valid: {problem}</source>
        <translation>匯入的設定無效：{problem}</translation>
    </message>
    <message>
        <source>{value} under DeepSpeed ZeRO steps DeepSpeed&apos;s flat fp32 partitions, not each tensor: not costed (as FSDP2 runs it, it is)</source>
        <translation>{value} 在 DeepSpeed ZeRO 下更新的是 DeepSpeed 的扁平 fp32 分區，不是逐個張量：未估算（FSDP2 的執行方式有估算）</translation>
    </message>
    <message>
        <source>{value} is not micro-batch x accumulation x data-parallel GPUs ({product}), as DeepSpeed requires; the estimate uses those</source>
        <translation>{value} 不等於 DeepSpeed 要求的微批次 × 梯度累加 × 資料平行 GPU 數（{product}）；估算採用這三者</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s train_batch_size is micro-batch x accumulation x data-parallel GPUs; with the micro-batch left to the trainer, it fixes none of them</source>
        <translation>DeepSpeed 的 train_batch_size 是微批次 × 梯度累加 × 資料平行 GPU 數；微批次交給訓練器決定時，它無法確定其中任何一項</translation>
    </message>
    <message>
        <source>{value} training is not costed for torchtune (bf16 and fp32 are)</source>
        <translation>未估算 torchtune 的 {value} 訓練（bf16 與 fp32 有估算）</translation>
    </message>
    <message>
        <source>knowledge distillation also holds the teacher model, which this estimate does not count</source>
        <translation>知識蒸餾還會放著教師模型，這個估算沒有算進去</translation>
    </message>
    <message>
        <source>checkpoints each layer but keeps some operators&apos; outputs (torchtune&apos;s op-level selective checkpointing), which VRAM Lab does not cost; costed as none, an upper bound</source>
        <translation>對每一層做梯度檢查點，但保留部分運算子的輸出（torchtune 以運算子為單位的選擇性檢查點），VRAM Lab 沒有估算這種做法；以不做梯度檢查點估算，為上限</translation>
    </message>
    <message>
        <source>applies only with enable_activation_checkpointing false (torchtune&apos;s distributed recipes); full checkpointing is used</source>
        <translation>只有在 enable_activation_checkpointing 為 false 時才會生效（torchtune 的分散式 recipe）；採用完整的梯度檢查點</translation>
    </message>
    <message>
        <source>not a training config (no optimizer: an evaluation, generation or quantization config)</source>
        <translation>不是訓練設定檔（沒有優化器：這是評估、生成或量化的設定檔）</translation>
    </message>
    <message>
        <source>{value} keeps the checkpoint&apos;s dtype, taken as bf16</source>
        <translation>{value} 沿用檢查點的 dtype，視為 bf16</translation>
    </message>
    <message>
        <source>not a tool&apos;s format: the arguments of {script} ({source}), read as that script reads them: {keys}</source>
        <translation>不是任何工具的格式：是 {script}（{source}）的參數，依該腳本的讀法讀取：{keys}</translation>
    </message>
    <message>
        <source>not a tool&apos;s format: a training script&apos;s own arguments beside transformers&apos; TrainingArguments, read as their names say: {keys}</source>
        <translation>不是任何工具的格式：是訓練腳本在 transformers 的 TrainingArguments 之外自己的參數，依名稱的字面意思讀取：{keys}</translation>
    </message>
    <message>
        <source>{value} leave the method to the script&apos;s own default, and VRAM Lab does not know this script</source>
        <translation>{value} 讓微調方法取決於腳本自己的預設值，而 VRAM Lab 不認得這個腳本</translation>
    </message>
    <message>
        <source>{value} ask for methods that exclude each other</source>
        <translation>{value} 指定的微調方法互相排斥</translation>
    </message>
    <message>
        <source>{value} is not a method the script takes</source>
        <translation>{value} 不是這個腳本接受的微調方法</translation>
    </message>
    <message>
        <source>LoRA is switched off ({value}), so this LoRA setting is not used</source>
        <translation>LoRA 已關閉（{value}），所以用不到這個 LoRA 設定</translation>
    </message>
    <message>
        <source>the script requires exactly one of fp16 and bf16 to be true (fp16: {fp16}, bf16: {bf16})</source>
        <translation>這個腳本要求 fp16 與 bf16 恰好只有一個為 true（fp16：{fp16}，bf16：{bf16}）</translation>
    </message>
    <message>
        <source>{value} trains only part of the model (the projector or the head), which VRAM Lab does not cost</source>
        <translation>{value} 只訓練模型的一部分（投影層或輸出層），VRAM Lab 不估算這種情況</translation>
    </message>
    <message>
        <source>the vision tower and projector are not counted (the estimate counts the language model)</source>
        <translation>視覺編碼器與投影層不計入（估算只計入語言模型）</translation>
    </message>
    <message>
        <source>the sequence is the prompt plus the completion, and the file does not bound the prompt (max_prompt_length)</source>
        <translation>序列是提示加上回答，而檔案沒有限制提示長度（max_prompt_length）</translation>
    </message>
    <message>
        <source>a 4-bit base trains only through adapters (use_peft is not set)</source>
        <translation>4 位元基底只能透過 adapter 訓練（沒有設定 use_peft）</translation>
    </message>
    <message>
        <source>torchtitan&apos;s {value} is not a model VRAM Lab holds (its llama3 8B, 70B, 405B and llama2 7B, 13B, 70B are)</source>
        <translation>torchtitan 的 {value} 不是 VRAM Lab 收錄的模型（收錄的是它的 llama3 8B、70B、405B 與 llama2 7B、13B、70B）</translation>
    </message>
    <message>
        <source>float8 linears (torchtitan&apos;s float8 converter) are not costed</source>
        <translation>VRAM Lab 沒有估算 float8 線性層（torchtitan 的 float8 轉換）</translation>
    </message>
    <message>
        <source>{value} is not one of torchtitan&apos;s activation checkpointing settings (none, full, selective with op or a layer count)</source>
        <translation>{value} 不是 torchtitan 的梯度檢查點設定（none、full，或 selective 搭配 op 或層數）</translation>
    </message>
    <message>
        <source>{value} is not one of torchtitan&apos;s parameter dtypes (bfloat16, float32)</source>
        <translation>{value} 不是 torchtitan 的參數精度（bfloat16、float32）</translation>
    </message>
    <message>
        <source>compiles the blocks but not the loss; costed with the loss compiled too</source>
        <translation>以 torch.compile 處理各層但不處理損失；估算時連損失也當作以 torch.compile 處理</translation>
    </message>
</context>
<context>
    <name>errors</name>
    <message>
        <source>Something went wrong</source>
        <translation>發生未預期的錯誤</translation>
    </message>
    <message>
        <source>{summary}

VRAM Lab kept its state; you can go on. Details were written to {path}.</source>
        <translation>{summary}

VRAM Lab 保留了目前的狀態，可以照常使用。詳細資訊已寫入 {path}。</translation>
    </message>
</context>
<context>
    <name>menus</name>
    <message>
        <source>&amp;File</source>
        <translation>檔案(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open scenario…</source>
        <translation>開啟情境(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>最近開啟(&amp;R)</translation>
    </message>
    <message>
        <source>Open &amp;PyTorch snapshot…</source>
        <translation>開啟 PyTorch 快照(&amp;P)…</translation>
    </message>
    <message>
        <source>&amp;Save scenario</source>
        <translation>儲存情境(&amp;S)</translation>
    </message>
    <message>
        <source>Save scenario &amp;as…</source>
        <translation>另存情境(&amp;A)…</translation>
    </message>
    <message>
        <source>Reset to &amp;defaults</source>
        <translation>恢復預設值(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Import training config…</source>
        <translation>匯入訓練設定檔(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;Export chart</source>
        <translation>匯出圖表(&amp;E)</translation>
    </message>
    <message>
        <source>PNG, actual size…</source>
        <translation>PNG，原始大小…</translation>
    </message>
    <message>
        <source>PNG, 2× size…</source>
        <translation>PNG，2 倍大小…</translation>
    </message>
    <message>
        <source>PNG, 3× size…</source>
        <translation>PNG，3 倍大小…</translation>
    </message>
    <message>
        <source>SVG (vector)…</source>
        <translation>SVG（向量）…</translation>
    </message>
    <message>
        <source>Export &amp;breakdown</source>
        <translation>匯出記憶體明細(&amp;B)</translation>
    </message>
    <message>
        <source>CSV…</source>
        <translation>CSV…</translation>
    </message>
    <message>
        <source>JSON…</source>
        <translation>JSON…</translation>
    </message>
    <message>
        <source>Markdown table…</source>
        <translation>Markdown 表格…</translation>
    </message>
    <message>
        <source>&amp;Copy chart</source>
        <translation>複製圖表(&amp;C)</translation>
    </message>
    <message>
        <source>Copy breakdown &amp;table</source>
        <translation>複製明細表格(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>結束(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>編輯(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>復原(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>檢視(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Lessons</source>
        <translation>課程(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Presentation mode</source>
        <translation>簡報模式(&amp;P)</translation>
    </message>
    <message>
        <source>Presentation s&amp;cale</source>
        <translation>簡報字級(&amp;C)</translation>
    </message>
    <message>
        <source>Theme: follow the &amp;system</source>
        <translation>主題：跟隨系統(&amp;S)</translation>
    </message>
    <message>
        <source>Theme: &amp;light</source>
        <translation>主題：淺色(&amp;L)</translation>
    </message>
    <message>
        <source>Theme: &amp;dark</source>
        <translation>主題：深色(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>語言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>說明(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About VRAM Lab</source>
        <translation>關於 VRAM Lab(&amp;A)</translation>
    </message>
</context>
<context>
    <name>pages</name>
    <message>
        <source>Memory</source>
        <translation>記憶體</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Levers</source>
        <translation>槓桿</translation>
    </message>
    <message>
        <source>Alignment</source>
        <translation>對齊</translation>
    </message>
    <message>
        <source>Serving</source>
        <translation>推論服務</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>時間軸</translation>
    </message>
</context>
<context>
    <name>roadmap</name>
    <message>
        <source>16-bit training (bf16)</source>
        <translation>16 位元訓練（bf16）</translation>
    </message>
    <message>
        <source>FlashAttention</source>
        <translation>FlashAttention</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>梯度檢查點</translation>
    </message>
    <message>
        <source>Chunked loss (TRL chunked_nll)</source>
        <translation>分塊計算損失（TRL chunked_nll）</translation>
    </message>
    <message>
        <source>8-bit AdamW</source>
        <translation>8-bit AdamW</translation>
    </message>
    <message>
        <source>LoRA (rank {rank})</source>
        <translation>LoRA（rank {rank}）</translation>
    </message>
    <message>
        <source>{gpus} GPUs with ZeRO-3</source>
        <translation>{gpus} GPU 搭配 ZeRO-3</translation>
    </message>
    <message>
        <source>about {low:.0%}–{high:.0%} more compute per step (H200: +{full:.0%} full, +{lora:.0%} LoRA)</source>
        <translation>每步多約 {low:.0%}–{high:.0%} 的計算（H200 實測：全參數 +{full:.0%}，LoRA +{lora:.0%}）</translation>
    </message>
    <message>
        <source>little: the output layer runs again in backward, chunk by chunk (about {recompute:.0%} more compute for this model); TRL&apos;s SFTTrainer default (loss_type=&apos;chunked_nll&apos;, TRL 1.7-1.14)</source>
        <translation>代價小：輸出層在反向傳播時分塊再算一次（此模型約多 {recompute:.0%} 的計算）；TRL SFTTrainer 的預設（loss_type=&apos;chunked_nll&apos;，TRL 1.7-1.14）</translation>
    </message>
    <message>
        <source>trains ~{share:.1%} of the weights; quality usually close to full</source>
        <translation>只訓練約 {share:.1%} 的權重；品質通常接近全參數微調</translation>
    </message>
    <message>
        <source>about {factor:g}× the communication of data parallelism</source>
        <translation>通訊量約為資料平行的 {factor:g} 倍</translation>
    </message>
    <message>
        <source>QLoRA (4-bit NF4 base)</source>
        <translation>QLoRA（4-bit NF4 基底）</translation>
    </message>
    <message>
        <source>Fused linear cross-entropy</source>
        <translation>線性層與交叉熵合併計算</translation>
    </message>
    <message>
        <source>Offload activations to CPU RAM</source>
        <translation>把激活值卸載到 CPU 記憶體</translation>
    </message>
    <message>
        <source>ZeRO-2 over the current GPUs</source>
        <translation>在現有 GPU 上用 ZeRO-2</translation>
    </message>
    <message>
        <source>ZeRO-3 / FSDP over the current GPUs</source>
        <translation>在現有 GPU 上用 ZeRO-3／FSDP</translation>
    </message>
    <message>
        <source>Offload optimizer states to CPU RAM</source>
        <translation>把優化器狀態卸載到 CPU 記憶體</translation>
    </message>
    <message>
        <source>Dataset as a memory-mapped Arrow file</source>
        <translation>資料集改存為記憶體映射的 Arrow 檔</translation>
    </message>
    <message>
        <source>Stream the dataset from Parquet (iterative loading)</source>
        <translation>從 Parquet 串流讀取資料集（逐批載入）</translation>
    </message>
    <message>
        <source>Load the checkpoint on rank 0 only, then broadcast</source>
        <translation>只在 rank 0 載入權重檔，再廣播</translation>
    </message>
    <message>
        <source>Load the checkpoint shard by shard (meta device)</source>
        <translation>逐個分片載入權重檔（meta device）</translation>
    </message>
    <message>
        <source>The same GPUs over {nodes} nodes</source>
        <translation>同樣的 GPU 分散到 {nodes} 個節點</translation>
    </message>
    <message>
        <source>almost none on GPUs with bf16</source>
        <translation>支援 bf16 的 GPU 上幾乎沒有代價</translation>
    </message>
    <message>
        <source>none: the same result, computed in tiles</source>
        <translation>沒有代價：分塊計算，結果相同</translation>
    </message>
    <message>
        <source>a CUDA kernel library (Liger-Kernel, use_liger_kernel=True); usually no slower, the logits are never materialised</source>
        <translation>一個 CUDA 函式庫（Liger-Kernel，use_liger_kernel=True）；通常不會變慢，輸出分數從不完整產生</translation>
    </message>
    <message>
        <source>host RAM for the saved activations and PCIe traffic every step: slower unless the copies overlap with compute (torchtune / TRL offload on a side stream)</source>
        <translation>存放激活值的主機記憶體，以及每步的 PCIe 傳輸：除非複製與計算重疊，否則會變慢（torchtune／TRL 在另一個 stream 上卸載）</translation>
    </message>
    <message>
        <source>almost none; states quantized block-wise</source>
        <translation>幾乎沒有；狀態以區塊為單位量化</translation>
    </message>
    <message>
        <source>slower matmuls (dequantized on the fly); small quality loss</source>
        <translation>矩陣乘法變慢（即時反量化）；品質略降</translation>
    </message>
    <message>
        <source>same communication as data parallelism</source>
        <translation>通訊量與資料平行相同</translation>
    </message>
    <message>
        <source>slower steps: the optimizer runs on the CPU</source>
        <translation>每步變慢：優化器在 CPU 上跑</translation>
    </message>
    <message>
        <source>more hardware</source>
        <translation>需要更多硬體</translation>
    </message>
    <message>
        <source>a one-off conversion (datasets&apos; save_to_disk); its pages are shared by every process and worker of the node, not copied</source>
        <translation>只需轉換一次（datasets 的 save_to_disk）；節點上所有行程與工作行程共用它的分頁，不會複製</translation>
    </message>
    <message>
        <source>no random access: examples are shuffled within a buffer, and each reader holds one row group</source>
        <translation>無法隨機存取：只在緩衝區內洗牌，每個讀取者保留一個 row group</translation>
    </message>
    <message>
        <source>accelerate&apos;s cpu_ram_efficient_loading (FSDP sync_module_states): one broadcast at start-up</source>
        <translation>accelerate 的 cpu_ram_efficient_loading（FSDP sync_module_states）：啟動時廣播一次</translation>
    </message>
    <message>
        <source>a sharded loader (the model built on the meta device): no whole copy anywhere</source>
        <translation>分片載入器（模型先建在 meta device 上）：任何地方都沒有完整副本</translation>
    </message>
    <message>
        <source>more machines, each with its own RAM, and traffic between them</source>
        <translation>更多機器，各有自己的 RAM，但機器之間要通訊</translation>
    </message>
</context>
<context>
    <name>words</name>
    <message>
        <source>weights</source>
        <translation>權重</translation>
    </message>
    <message>
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>optimizer states</source>
        <translation>優化器狀態</translation>
    </message>
    <message>
        <source>activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>logits</source>
        <translation>輸出分數（logits）</translation>
    </message>
    <message>
        <source>sharding buffers</source>
        <translation>分片緩衝區</translation>
    </message>
    <message>
        <source>temporaries</source>
        <translation>暫存張量</translation>
    </message>
    <message>
        <source>parallelism buffers</source>
        <translation>平行化緩衝區</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV cache</translation>
    </message>
    <message>
        <source>non-torch memory</source>
        <translation>PyTorch 以外的記憶體</translation>
    </message>
    <message>
        <source>CUDA graphs</source>
        <translation>CUDA Graphs</translation>
    </message>
    <message>
        <source>model loading</source>
        <translation>模型載入</translation>
    </message>
    <message>
        <source>dataset</source>
        <translation>資料集</translation>
    </message>
    <message>
        <source>DataLoader workers</source>
        <translation>DataLoader 工作行程</translation>
    </message>
    <message>
        <source>pinned buffers</source>
        <translation>鎖頁緩衝區</translation>
    </message>
    <message>
        <source>offloaded states</source>
        <translation>卸載的狀態</translation>
    </message>
    <message>
        <source>runtime (Python, PyTorch, CUDA)</source>
        <translation>執行環境（Python、PyTorch、CUDA）</translation>
    </message>
    <message>
        <source>allocator reserve</source>
        <translation>配置器保留量</translation>
    </message>
    <message>
        <source>CUDA context</source>
        <translation>CUDA 執行環境</translation>
    </message>
    <message>
        <source>activation workspace</source>
        <translation>激活值工作區</translation>
    </message>
    <message>
        <source>forward pass</source>
        <translation>前向傳播</translation>
    </message>
    <message>
        <source>policy</source>
        <translation>策略模型</translation>
    </message>
    <message>
        <source>reference</source>
        <translation>參考模型</translation>
    </message>
    <message>
        <source>reward</source>
        <translation>獎勵</translation>
    </message>
    <message>
        <source>critic</source>
        <translation>價值模型</translation>
    </message>
    <message>
        <source>rollout engine</source>
        <translation>生成引擎（rollout）</translation>
    </message>
    <message>
        <source>data</source>
        <translation>資料</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>損失</translation>
    </message>
    <message>
        <source>trained</source>
        <translation>要訓練</translation>
    </message>
    <message>
        <source>frozen</source>
        <translation>凍結</translation>
    </message>
    <message>
        <source>rule</source>
        <translation>規則</translation>
    </message>
    <message>
        <source>own copy</source>
        <translation>獨立一份</translation>
    </message>
    <message>
        <source>base with adapters off: no copy</source>
        <translation>關掉 adapter 的基底：不另存一份</translation>
    </message>
    <message>
        <source>log-probs precomputed</source>
        <translation>對數機率事先算好</translation>
    </message>
    <message>
        <source>not loaded (KL coefficient 0)</source>
        <translation>不載入（KL 係數為 0）</translation>
    </message>
    <message>
        <source>a rule: a program, not a model</source>
        <translation>規則：是程式，不是模型</translation>
    </message>
    <message>
        <source>the policy (model.generate)</source>
        <translation>策略模型本身（model.generate）</translation>
    </message>
    <message>
        <source>vLLM server, own GPUs</source>
        <translation>vLLM 伺服器，自己的 GPU</translation>
    </message>
    <message>
        <source>vLLM colocated</source>
        <translation>vLLM 同卡共置</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>優化器更新</translation>
    </message>
    <message>
        <source>setup</source>
        <translation>準備</translation>
    </message>
    <message>
        <source>outside the step</source>
        <translation>訓練步驟之外</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>不明</translation>
    </message>
    <message>
        <source>unattributed</source>
        <translation>無法歸類</translation>
    </message>
</context>
</TS>
