# shapetrace: the why of every step, in English.
# One message per op kind (and per variant a fault builds); the arguments
# are the step's own numbers. A second language is one more file.

## Steps

why-input = x0 is the model's input: { $B } sequences of { $T } tokens, each token a vector of d_model { $d } numbers. Every block takes this (B,T,d) shape { $shape } and gives it back, so blocks stack.

why-norm = { $norm } rescales each token's { $d } features on their own (over d, not over T or B); γ{ $norm ->
    [LayerNorm] {" "}and β have
   *[other] {" "}has
} { $d } entries, one per feature. The shape stays { $shape }.

why-norm-seq = This norm averages over the { $T } positions (T) instead of the { $d } features (d): the shape stays { $shape }, so no shape check sees it, but each token now reads the other tokens, later ones too.

why-norm-batch = This norm averages over the { $B } batch elements (B), as BatchNorm does, instead of each token's { $d } features (d): the shape stays { $shape }, so no shape check sees it, but each sequence now reads the other sequences in the batch.

why-linear-q = x·Wq with Wq ({ $rows },{ $cols }): { $wide ->
    [yes] each token's { $rows } features become { $cols } query features, h·hd rather than d_model { $rows }, because the config gives each head its own width (head_dim); they are split into heads next. The output is { $shape }.
   *[no] each token's { $rows } features become { $cols } query features, later split into heads. The shape stays { $shape }.
}

why-linear-kv = { $w } is ({ $rows },{ $cols }): { $gqa ->
    [yes] under grouped-query attention k and v are narrower than d_model: each token's { $rows } features become { $cols } { $role } features instead of { $rows }, for fewer heads than q. The output is { $shape }.
   *[no] each token's { $rows } features become { $cols } { $role } features, split into heads next. The shape stays { $shape }.
}

why-grad = dL/d{ $of } has { $of }'s own shape { $shape }: the loss is one number, and each value of { $of } moves it by its own amount. { $n ->
    [0] Nothing that read it reaches the loss: its gradient is 0.
    [one] One step read it; this is what its backward sent back.
   *[other] { $n } steps read it; their backwards' shares are summed.
}
why-loss-next-token = the loss is one number: the logits { $path } { $shape } at position t score the token at t + 1, so the last position has none to score; the cross-entropy is averaged over B·(T−1) = { $n } predictions.
why-loss-mean-square = the loss is one number: with no vocabulary there is no next token to score, so it is the mean of { $path }² over its { $n } values, a stand-in that reaches every parameter.

why-linear-column = This device's columns of { $w }: ({ $rows },{ $cols }), a column-parallel slice. Each device holds its own heads' (or hidden units') columns, so each token's { $rows } features become this device's { $cols }, { $shape }, computed from the whole input with no communication.

why-linear-partial = This device's rows of { $w }: ({ $rows },{ $cols }), a row-parallel slice that reads only this device's { $rows } features. x_k·W_k is a partial sum of exactly the output's shape, { $shape }: right in shape, wrong in value until every device's part is summed (the all-reduce, or the reduce-scatter, next).

why-linear-kv-replicated = Fewer K/V heads than devices: a head cannot be cut across devices, so this device keeps one whole K/V head, the one its query heads read, ({ $rows },{ $cols }), and the devices whose query heads share it hold the same copy, replicated. Each token's { $rows } features become that head's { $cols } { $role } features, { $shape }.

why-linear-out = The output projection Wo ({ $rows },{ $cols }) mixes the merged heads' { $rows } features; { $wide ->
    [yes] it maps h·hd { $rows } back to d_model { $cols }: this is where the shape returns to (B,T,d), so its output { $shape } can be added onto the residual stream.
   *[no] it maps d_model to d_model, so its output { $shape } can be added onto the residual stream.
}

why-linear-up = W1 is ({ $rows },{ $cols }): each token widens from d_model { $rows } to d_ff { $cols } hidden units, giving { $shape }.{ $bias ->
    [0] {""}
   *[other] {" "}b1 has { $cols } entries, one per hidden unit, not { $rows }.
}

why-linear-gate = The gate Wg ({ $rows },{ $cols }) is as wide as the up projection: d_ff { $cols } per token, giving { $shape }; silu of it decides how much of each hidden unit passes.

why-linear-down = W2 is ({ $rows },{ $cols }), not ({ $cols },{ $rows }): the { $rows } hidden units come back to d_model { $cols }, so the MLP's output { $shape } can be added onto the residual stream.

why-linear = x·W with W ({ $rows },{ $cols }): the last axis becomes W's { $cols } columns, giving { $shape }.

why-split = { $wide ->
    [yes] h·hd { $d }
   *[no] d_model { $d }
} = { $heads } heads × { $hd }: each head attends in its own { $hd }-wide slice; heads move in front of T, (B,h,T,hd) = { $shape } and not (B,T,h,hd), so that each head makes its own { $T }×{ $T } table of scores.

why-split-kv = k and v have { $heads } heads of { $hd } ({ $d } = { $heads } × { $hd }): under grouped-query attention fewer K/V heads than query heads are kept, each shared by a group of query heads. The heads move in front of T: { $shape }.

why-rope = Rotary positions turn each of the { $pairs } feature pairs of every head by an angle that grows with the token's position: the shape { $shape } does not change, and hd { $hd } must be even.

why-repeat-kv = Grouped-query attention: the { $kv } K/V heads, each repeated { $rep } times, give { $h } heads, one for each query head, so q meets its k, and its weights their v, head for head: { $shape }.

why-rope-partial = Partial rotary: only the first { $dims } of the { $hd } features of each head turn, { $pairs } pairs by an angle that grows with the token's position; the other { $rest } pass as they are. The shape { $shape } does not change.

why-alibi = ALiBi: each of the { $heads } heads adds m·(j − t) to the score of query t for key j, 0 at the token itself and more negative for every step back, its slope m from { $first } down to { $last }: positions enter as a penalty on distance, with no table and no rotation. Element by element, so the scores keep their shape { $shape }.

why-softcap = A soft cap, { $cap }·tanh(s/{ $cap }), on each score before the mask: large scores level off below { $cap }, small ones barely move. Element by element, so the scores keep their shape { $shape }.

why-softcap-logits = A soft cap, { $cap }·tanh(z/{ $cap }), on each logit: no score of the vocabulary passes { $cap }. Element by element, so the logits keep their shape { $shape }.

why-scale-embed = Each token's vector is multiplied by √d_model = √{ $d } ≈ { $by }, so the embeddings enter the stream at the scale the blocks expect: one number for every element, so the shape stays { $shape }.

why-scores = Each of the { $h } heads compares each of its { $Tq } queries (Tq) with each of its { $Tk } keys (Tk): a { $Tq }×{ $Tk } table per head, scaled by 1/√{ $hd }. The scores are { $shape }, not { $wrong }: one table per head, not one vector per token.

why-softmax-causal = The causal mask hides the keys after each query (a key later than the query gets −∞), then softmax turns each row of { $Tk } scores into weights that sum to 1. The shape stays { $shape }.

why-softmax-window = The sliding window hides every key outside the last { $w } positions up to each query (a later key, or one more than { $w } back, gets −∞), then softmax turns each row of { $Tk } scores into weights over at most { $w } keys that sum to 1. The shape stays { $shape }: the window changes which cells are ╳, not the axes.

why-softmax-two-way = An encoder's attention has no mask, by design: each query reads all { $Tk } keys, before and after it, and softmax turns each row into weights that sum to 1. The shape stays { $shape }; the causality probe expects the influence to spread both ways.

why-softmax = No mask: softmax turns each row of { $Tk } scores into weights that sum to 1, spread over every key, later tokens too. The shape stays { $shape }, so no shape check sees the leak; the causality probe does.

why-softmax-no-max = Softmax without subtracting each row's maximum first: exp of a large score overflows to ∞ and ∞/∞ is NaN, so the { $Tk } weights of a row no longer sum to 1. Subtracting the maximum changes no weight (it cancels in the ratio) and keeps every exp at most 1. The shape stays { $shape }.

why-weighted-sum = Each query takes the weighted sum of the { $Tk } value vectors: ({ $Tq }×{ $Tk })·({ $Tk }×{ $hd }) gives { $Tq }×{ $hd } per head; the key axis Tk is summed away, and the query positions are T again: { $shape }.

why-merge = The { $h } heads of { $hd } go back side by side: transpose to (B,T,h,hd), then reshape to { $wide ->
    [split] h/{ $N }·hd = { $h } × { $hd } = { $d }: these are this device's { $h } heads of the model's d_model { $dm } ({ $N } devices share them), so the merged heads { $shape } leave (B,T,d) here; the row-parallel output projection reads them, and the sum over the devices after it gives (B,T,d) back.
    [yes] h·hd = { $h } × { $hd } = { $d }, which is not d_model { $dm }: the config gives head_dim apart from d_model / h, so the merged heads { $shape } leave (B,T,d) here, and the output projection brings them back.
   *[no] d_model { $d } = { $h } × { $hd }. The shape { $shape } is (B,T,d) again.
}

why-reshape = A bare reshape of (B,h,T,hd) to { $shape }, without the transpose: the shape is right, so every shape check passes, but each row of { $d } now mixes the heads of different tokens. The causality probe sees it.

why-act = { $act } acts on each of the { $ff } hidden units of each token on its own: the shape { $shape } does not change.

why-act-after-down = { $act } after the down projection: it acts on the { $ff } stream features, not on the hidden units between W1 and W2. Every shape still fits, { $shape }, so only comparing with the declared MLP, W2·act(W1·x), on the same weights (the reference check) finds it.

why-swiglu = silu(gate) ⊙ up: both are d_ff { $ff } wide and are multiplied element by element, so the shape stays { $shape }.

why-columns = Columns { $lo } to { $hi } of { $from }'s { $width }: one fused matrix computed every part side by side, so this part is a slice of its output, { $shape }, exactly what its own matrix would give. One matmul instead of several; the same numbers.

why-columns-grouped = Columns { $lo } to { $hi } of each of the { $groups } groups of { $period } in { $from }'s { $width }: the fused matrix keeps each group's parts side by side, so this part is gathered group by group, { $shape }, exactly what its own matrix would give.

why-geglu = gelu_tanh(gate) ⊙ up: both are d_ff { $ff } wide and are multiplied element by element, so the shape stays { $shape }.

why-add = The residual add { $stream } + { $update }: element by element, so both must be (B,T,d) { $shape }. That is why every sublayer gives back d_model { $d }.

why-add-updates = Parallel residuals: attention and the MLP both read the block's input, through their norms (or the one norm they share), and their updates { $a } + { $b } are summed here, before the stream: both are (B,T,d), so the sum is { $shape }. One residual add then puts it on x: one add a block, of two updates.

why-tokens = The token ids: { $B } sequences of { $T ->
    [1] one token
   *[other] { $T } tokens
}, one integer per token (int64), { $shape }. They are not vectors yet, and not (B,T,d): the token embedding turns each id into a row of d_model numbers.

why-embedding = Each id picks its row of wte ({ $V },{ $d }): a lookup, not a product, so the { $B }×{ $T } ids become { $B }×{ $T } vectors of { $d }, { $shape }. Row i is token i's vector; an id ≥ { $V } has no row.

why-embedding-part = The vocabulary is split by rows: this device holds rows { $from }..{ $to } of wte, each of { $d }. A token whose id falls in that range gets its row; any other gets a row of zeros, { $shape } either way. Exactly one device holds each token's row, so the all-reduce after it, a sum over the devices, gives every token its vector.

why-pad = Zeros appended to { $to }, { $shape }, so the devices can split it evenly: padding rows no token id reaches, whose scores are dropped before the logits leave.

why-vocab-unpad = The vocabulary was padded with { $pad ->
    [one] 1 row
   *[other] { $pad } rows
} of zeros so the devices could split it evenly; no token id reaches them, so their scores are dropped here and the logits are the model's V { $V } again, { $shape }.

why-lm-head-part = This device holds its rows of the vocabulary, so it scores only those { $V } tokens at every position, { $shape }: each token's score needs only its own row, so no sum is needed, only the devices' scores side by side.

why-all-reduce-embedding = The all-reduce of the lookup: each of the { $N } devices looked every token up in its own rows of wte, and exactly one of them holds each token's row (the others gave zeros), so the sum over the devices is every token's vector, { $shape }. In a ring each device sends 2·(N−1)/N of it: { $bytes }.

why-all-gather-vocab = The all-gather of the logits: each of the { $N } devices scored its own rows of the vocabulary, and the devices' scores side by side are every token's, { $shape }. In a ring each device sends (N−1)/N of it: { $bytes }.

why-positions = Position t reads row t of wpe ({ $ctx },{ $d }); only the first T = { $T } rows are used, so pos_emb is { $shape }: one vector per position, the same for every sequence, with no B axis.

why-add-positions = x0 = tok_emb + pos_emb: { $tok } + { $pos } broadcasts the positions over the { $B } sequences, so each token's vector carries where it stands. { $shape } is the residual stream every block reads and gives back.

why-positions-offset = Position t reads row t + { $offset } of wpe ({ $ctx },{ $d }): the first { $offset } rows come before position 0, so rows { $offset } to { $end } are used and pos_emb is { $shape }: one vector per position, the same for every sequence, with no B axis.

why-kv-cache-prefill = The prompt's { $new } keys (or values) start the cache, { $shape }: every decode step after reads them from here instead of computing them again.

why-kv-cache = The key/value cache after this step: the { $held } positions cached before and the { $new } new, { $S } in all, { $shape }. A decode step computes k and v for its new token alone and reads every earlier one from here, which is why its query is one row and its keys are all of them.

why-kv-cache-ring = A sliding window of { $w }: the cache is a ring of { $w } slots, position p going to slot p mod { $w }; the last position written, { $pos }, went to slot { $slot }, overwriting position { $old }, which no query from now on may read. The cache holds the last { $w } positions, { $shape }: it stops growing at the window.

why-rope-decode = The new token turns at its true position, { $pos } (the number of tokens before it), not at 0: its query then meets each cached key, turned at its own position when it was cached, at the distance the two really stand apart. The shape { $shape } does not change.

why-scores-decode = A decode step's query is one row, Tq = { $Tq }: only the new token asks. Its keys are every position the cache holds, Tk = { $Tk }, so the scores are { $shape }: one row of { $Tk } dot products per head, each divided by √{ $hd }.

why-softmax-decode = The new token is the newest position, so no key comes after it, and the cache holds only keys it may read: the mask hides nothing in its one row, and softmax turns the { $Tk } scores into weights that sum to 1. The shape stays { $shape }.

why-softmax-top-left = The mask is tril(ones(Tq, Tk)), aligned at the top left: query row i reads keys 0..=i. With Tq = { $Tq } and Tk = { $Tk } the new token, the newest position, reads key 0 alone and ignores the rest of the cache; the mask must sit at the bottom right, query i at position i + Tk − Tq. The shape { $shape } hides the mistake.

why-positions-decode = A decode step's one token stands at position { $start }, so it reads row { $pos } of wpe, not row 0: pos_emb is { $shape }.

why-token-type = Every token of the trace is of type { $id } (BERT's first segment), so each adds row { $id } of wtt ({ $types },{ $d }): one vector per token, { $shape }, the same for every position, telling the encoder which sentence of a pair the token is in.

why-first-token = BERT's pooler reads one token per sequence, the first ([CLS]): x[:, 0] keeps { $B } vectors of the { $T } positions, { $shape }. The T axis is gone: the pooled vector stands for the whole sequence, which is why a classifier reads it and why it never returns to (B,T,d).

why-pooler = tanh of the pooler's projection, one vector per sequence, { $shape }: the encoder's summary, not a sublayer's update, so it never returns to (B,T,d).

why-lm-head-tied = The LM head scores every token of the vocabulary at every position: x·wteᵀ maps d_model { $d } to V { $V }, giving the logits { $shape }. Tied: it reuses { $w } transposed, so it adds no parameters. The logits are the model's output, not a sublayer's: they never return to (B,T,d).

why-lm-head = The LM head scores every token of the vocabulary at every position: x·W with { $w } (d_model { $d }, V { $V }) gives the logits { $shape }. They are the model's output, not a sublayer's: they never return to (B,T,d).

why-linear-router = The router scores every expert for every token: x·W_r with { $w } (d_model { $rows }, E { $cols }) gives one logit per expert, { $shape }. It is a linear layer like the others, only narrow: E experts, not d_ff units.

why-router-softmax = Softmax over the { $E } experts of each token on its own: the router's logits become probabilities that sum to 1 per token. Nothing is masked, and the shape stays { $shape }.

why-top-k = Each token keeps its { $k } most probable of { $E } experts, best first: { $shape } holds expert ids, not features. Which experts a token gets is data, decided here.

why-route-weights = The { $k } chosen probabilities of each token over their sum: the weights its experts' outputs are mixed with, summing to 1 per token, so the combine adds one token's worth of update. { $shape }.

why-dispatch = Expert { $e }'s batch: the rows of the tokens that chose it, gathered out of (B,T,d) into { $shape }. { $n } of the { $tokens } tokens chose it; that count is the data's, so the shape leaves (B,T,d) for (n_e,d) and no config can say n_e in advance{ $capacity ->
    [0] .
   *[other] . At most { $capacity } are kept: a token past the capacity is dropped and gets no update from this expert.
}

why-dispatch-bound = Expert { $e }'s batch: the rows of the tokens that choose it, gathered out of (B,T,d). How many choose it is the data's, known only once there are values: a shape-only run records its bound, { $bound } (B·T, since each token picks an expert at most once), so the shape leaves (B,T,d) for (n_e ≤ { $bound }, { $d }).

why-combine-bound = Each expert's rows go back to their tokens, times the token's weight for that expert, and the { $E } experts' shares are summed: { $shape }, (B,T,d) again. A shape-only run knows each expert's rows by their bound only; with values they add up to B·T·k = { $slots }, the routing check's count.

why-combine = Each expert's rows go back to their tokens, times the token's weight for that expert, and the { $E } experts' shares are summed: { $shape }, (B,T,d) again. Every token chose { $k } experts, so { $slots } rows should come back; { $routed } did.

why-cast-up = The { $what } runs in f32: its sums over many values (a mean and a variance, or the exps of a row) need f32's 24 significant bits, and { $from } keeps { $bits }. The shape stays { $shape }; only the dtype leaves the stream's { $from }.

why-cast-back = Cast back to { $to }, the stream's dtype, after the { $what }: the next matrix product needs one dtype, and the residual stream stays { $to }. The shape stays { $shape }; the dtype returns.

## Steps another program recorded (an exported PyTorch module)

why-foreign-linear = A linear layer: each token's { $rows } features become { $cols }, { $from } → { $shape }; only the last axis changes.

why-foreign-matmul = { $op } multiplies { $ins }: the last axis of the first meets the second-to-last of the second and is summed away, giving { $shape }.

why-foreign-reshape = { $op } keeps all { $n } values in their order and regroups the axes, { $from } → { $shape }. On heads (B,h,T,hd), regrouping to (B,T,d) without a transpose first mixes the tokens; the causality probe sees it.

why-foreign-transpose = { $op } reorders the axes, { $from } → { $shape }: no value changes, only which axis is which.

why-foreign-softmax = softmax turns each row of { $n } values of the last axis into weights that sum to 1; the shape stays { $shape }.

why-foreign-other = { $op } : { $ins } → { $shape }. shapetrace has no name for this op; its shape is as the log recorded it.

## Failures

why-fail-stream-dtype = { $path } sits on the residual stream, so it must be { $shape } in the stream's { $want }, but it is { $got }: the step computed in { $got } and never cast back to { $want }. Every later step now runs in { $got }, or refuses to mix the two.

why-fail-residual-dtype = { $path } adds a { $stream } stream and a { $update } update ({ $update_path }): the shapes fit, the dtypes do not; the residual stream is { $want }, so the update must be cast back to { $want } first.

why-fail-matmul-dtype = { $path } multiplies { $a } ({ $a_dtype }) by { $b } ({ $b_dtype }): a matrix product needs one dtype for both, as PyTorch's matmul does. The { $a_dtype } operand came from an f32 step that was never cast back.

why-fail-residual-hidden = The MLP returned its hidden layer { $update }; the residual needs { $want }: the down projection is missing.

why-fail-residual-heads = The attention returned its heads unmerged, { $update }; the residual needs { $want }: the heads must be merged back (transpose, then reshape) first.

why-fail-residual = { $path } adds { $stream } and { $update } ({ $update_path }); the residual needs two { $want } operands.

why-fail-bias = { $bias_path } has { $bias } entries, but x·W gives { $cols } columns: the bias has one entry per output column, { $cols } here, not { $bias }.

why-fail-linear = x·W needs x's last axis equal to W's rows: { $x } has { $x_last }, W { $w } has { $rows }.

why-fail-stream = { $path } sits on the residual stream, so it must be { $want }, but it is { $shape }.

why-fail-stream-linear = { $path } sits on the residual stream, so it must be { $want }, but its weight { $w_path } is { $w }: it maps each token's { $rows } features to { $cols }, not back to d_model { $d }. The down projection must be ({ $rows },{ $d }).

why-fail-finite-softmax = { $path } holds values that are not finite: the softmax took exp of its scores without subtracting each row's maximum first, exp overflowed to ∞ and ∞/∞ gave NaN. Subtracting the maximum changes no weight and keeps every exp at most 1.

why-fail-finite = { $path } holds values that are not finite (inf or NaN): a sum or an exponential overflowed.

why-fail-op = { $op } at { $path } cannot take operands { $shapes } ({ $check }).

why-add-skips-sublayer = The update { $update } is the sublayer's input, not its output: what the sublayer computed never reaches the stream. The shapes fit, { $shape } + { $shape }, so no shape check stops it; the returns check sees the departure that never came back.

why-add-reads-x0 = This add in block { $block } takes its stream from the model's input x0, not from the block before it: Block{ $block }(x) instead of Block{ $block }(Block{ $prev }(x)) skips block { $prev }. The shapes fit, { $shape } + { $shape }, so no shape check stops it: the wiring check (and the reference check) sees it.

why-add-no-out-proj = The update { $update } is the merged heads, added with no output projection: its { $d } features are the heads side by side, never mixed by W_O (d×d). The shapes fit, { $shape }, so no shape check stops it: the parameter count sees the missing (d,d) matrix, and the reference check the different output.

## The stepper's screens: header and tabs

ui-tab-steps = Steps
ui-tab-checks = Checks
ui-tab-ffn = FFN
ui-tab-norms = Norms
ui-tab-budget = Budget
ui-tab-probes = Probes
ui-tab-presenter = Presenter
ui-shapes-only = shapes only
ui-weights-from-file = weights from file
ui-fault-badge = ⚠ fault { $fault }
ui-experts = top { $k } of { $E } experts

## Footer

ui-adds = residual adds { $mark } { $passed }/{ $want }
ui-no-verdicts = – no verdicts recorded
ui-fails-at = ✗ { $check } at { $path }
ui-counts = ◆ { $departures } { $departures ->
    [one] departure
   *[other] departures
} · ↩ { $returns } { $returns ->
    [one] return
   *[other] returns
}
ui-device = ⧉ device { $k } of tp={ $N }
ui-device-sp = ⧉ device { $k } of tp={ $N }+sp
ui-device-ep = ⧉ device { $k } of ep={ $N }
ui-stage = ⊟ stage { $s } of pp={ $M } (device { $k })
ui-counts-hidden = ◆ ↩ counts hidden in the quiz
ui-counts-hidden-short = ◆ ↩ hidden
ui-footer-quiz = quiz { $right }/{ $asked }
ui-stale = ⧗ stale, re-tracing:
ui-tracing = tracing values · keys work · q quits
ui-tracing-count = tracing values: { $done }/{ $expected } events · keys work · q quits
ui-headline = { $failed ->
    [0] { $skipped ->
        [0] all { $held } checks hold
       *[other] { $held } checks hold, { $skipped } skipped
    }
   *[other] { $skipped ->
        [0] { $failed } of { $total } checks fail
       *[other] { $failed } of { $total } checks fail, { $skipped } skipped
    }
}
ui-hint-step = step
ui-hint-departure = departure
ui-hint-add = add
ui-hint-switch = switch
ui-hint-quiz = quiz
ui-hint-present = present
ui-hint-presenter = presenter
ui-hint-help = help
ui-hint-quit = quit
ui-hint-pause = pause
ui-hint-resume = resume
ui-hint-edit-x = edit x
ui-hint-next-tab = next tab
ui-hint-field = field
ui-hint-change = change
ui-hint-type = type
ui-hint-reset = reset
ui-hint-token = token
ui-hint-probe = probe
ui-hint-fault = fault

## The step list

ui-col-step = step
ui-col-path = path
ui-col-shape = shape
ui-col-dtype = dtype
ui-col-marker = marker
ui-stopped-above = ⋯ the forward stopped above: later steps cannot run
ui-fails-here = ✗ { $check } fails here
ui-stops-here = ✗ { $check } stops here
ui-blame-linear = x's last axis { $x } should be W's rows { $rows }
ui-blame-bias = bias { $bias } should be ({ $cols })
ui-mark-add-ok = ✓ add { $ops }
ui-mark-add-bad = ✗ add { $ops }
ui-mark-leaves = ◆ leaves { $what }
ui-mark-returns = ↩ returns

## The Detail pane

ui-detail-title = Detail
ui-detail-hidden = shape hidden: the quiz asks for it first
ui-detail-add-ok = residual add: both (B,T,d), { $dtype }
ui-detail-at = at { $line }
ui-detail-add-bad = residual add: shapes differ, { $dtype }
ui-from = from{" "}
ui-from-log-ids = the ids the log was traced on
ui-from-given-ids = the given ids (--tokens)
ui-from-seeded-ids = ids drawn uniformly from 0..{ $vocab } by the seed
ui-from-token-ids = the token ids
ui-from-given-input = the given input x0 (--input)
ui-from-seeded-input = the seeded input x0 ~ N(0,1)
ui-from-stage = the stage before (stage { $s }), over the pipe
ui-why = why:{" "}
ui-why-more = {" "}… w: all
ui-fail-at = ✗ { $check } fails at { $path } ({ $op })
ui-operands = operands{" "}
ui-forward-stopped = The forward stopped here: the steps after it cannot run.
ui-fault-line = fault { $fault }: { $what }

## The diagram

ui-diagram-block = Block { $b } of { $layers } · { $form }
ui-diagram-input = Input, before block 1 · { $form }
ui-diagram-embeddings = Embeddings, before block 1 · { $path }
ui-diagram-recv = Received, before block { $b } · { $path }
ui-diagram-after = After block { $layers } · { $path }
ui-form-sandwich = sandwich norms
ui-form-mixed = mixed norms
ui-form-parallel = parallel
ui-form-shared-norm = parallel, 1 norm
ui-form-encoder = encoder
ui-diagram-reads-x0 = ✗ reads x0, not block { $prev }'s output
ui-on-stream = on (B,T,d)
ui-now = now { $path }
ui-failed-here = ✗ { $check } failed here
ui-now-quiz = now: ? (quiz)
ui-now-reveal = now: ? (→ reveals)

## The help overlay: one line per row of the key table

help-title = Keys · ? or Esc closes
help-title-scroll = Keys { $from }–{ $to } of { $total } · ↓↑ scroll · ? Esc closes
help-legend = ◆ leaves (B,T,d) or the stream's dtype   ↩ returns   ✓/✗ residual add
help-next = next step
help-prev = previous step
help-down-up = move down / up (labs: field or view)
help-first-last = first / last step
help-page = ten steps on / back
help-departure = next / previous departure from (B,T,d)
help-residual = next / previous residual add
help-pass = next / back a pass of generation (prefill, decode steps)
help-head = previous / next head in the heatmap
help-scroll = scroll a wide heatmap left / right
help-why = the whole why in the Detail pane (hides the heatmap)
help-act = cycle the activation (re-runs)
help-norm = switch LayerNorm / RMSNorm (re-runs)
help-placement = switch Pre-LN / Post-LN (re-runs)
help-fault = cycle the teaching faults (re-runs)
help-device = the next device of a split model (re-runs)
help-quiz = quiz: predict each new shape
help-reveal = reveal mode: each next shape hidden until → shows it
help-charts = Budget: its pictures / its table
help-present = presenter mode (space pauses autoplay)
help-back = back to the replayed log after a switch
help-tabs = tabs: Steps Checks FFN Norms Budget Probes
help-edit = labs: edit the input vector
help-mistake = FFN: cycle the mistake / simple or gated (SwiGLU)
help-typing = typing: answer or apply / skip or drop; letters are text
help-click = select a step
help-help = this help
help-quit = quit

## The Checks tab

ui-checks-title = Checks: the contract and the probes
ui-checks-fault = fault { $fault }: { $what } — caught by { $by }
ui-and = {" "}and{" "}
ui-verdict-pass = pass
ui-verdict-fail = FAIL
ui-verdict-skip = skip

## The teaching faults

fault-ffn-no-down = the MLP returns its hidden layer: no down projection
fault-attn-no-merge = the attention heads are never merged back
fault-bias-w1-64 = b1 is sized d_model instead of d_ff
fault-merge-no-transpose = the heads are merged by a bare reshape, without the transpose
fault-no-causal-mask = the causal mask is left out
fault-skip-block1 = Block2(x) instead of Block2(Block1(x))
fault-norm-over-seq = the norm averages over the sequence instead of the features
fault-no-out-proj = attention has no output projection: the merged heads are its output
fault-act-after-down = the activation comes after the down projection instead of between up and down
fault-ln-after-add = the norm sits after the residual add in a model declared Pre-LN
fault-mlp-returns-input = the MLP computes its hidden layer and returns its input
fault-norm-over-batch = the norm averages over the batch, as BatchNorm does, instead of the features
fault-softmax-no-max = the softmax skips subtracting the row maximum, on large scores (q/k weights drawn N(0, 1))
fault-down-to-ff = the down projection W2 is (d_ff, d_ff): the MLP's output stays d_ff wide
fault-norm-no-cast-back = the norm upcasts to f32 and returns f32, never casting back to the stream's dtype
fault-softmax-no-cast-back = the softmax runs in f32 and its weights are never cast back, so weights·v mixes f32 with the model's dtype
fault-moe-capacity = each expert takes at most ⌈B·T·k/E⌉ tokens: later ones are dropped
fault-no-sliding-window = the declared sliding window is left out: every query reads every earlier key
fault-window-off-by-one = the sliding window reads one position fewer than declared, a < written for <=
fault-decode-no-append = a decode step never writes its new key and value into the cache: the token attends only to the past
fault-decode-rope-at-zero = a decode step turns its new token as if it stood at position 0, not at the cache's length
fault-decode-mask-top-left = the causal mask is tril(ones(Tq, Tk)), aligned at the top left: a decode step's one query reads key 0 alone
fault-grad-tied-once = the backward gives a tied wte the embedding's gradient alone: the LM head's share, dzᵀ·x, is lost
fault-softmax-grad-no-sub = the softmax's backward forgets the row's weighted sum: ds = w ⊙ dw instead of w ⊙ (dw − Σⱼ w·dw)
fault-tp-no-allreduce = a row-parallel layer's partial sum is used without the all-reduce: each device adds only its own heads' (or hidden units') share onto the stream
fault-sp-scatter-no-sum = the reduce-scatter cuts each device's own partial sum without summing the devices': every slice of the positions misses the other devices' shares
fault-pp-recv-no-wait = a pipeline stage reads its receive buffer before the receive completes (an irecv without its wait): the blocks after it run on zeros
fault-ep-return-order = expert parallelism's return stacks the devices' parts in reverse device order, so each run of rows is read as another expert's output
fault-vocab-no-mask = a vocabulary-parallel lookup masks the ids another device holds to row 0 but does not zero their vectors: every token gets its own row plus the other devices' row 0
fault-why-ffn-no-down = the residual add meets the hidden layer: (B,T,d) + (B,T,d_ff), (2,4,64) + (2,4,256) on the lesson model
fault-why-attn-no-merge = the residual add meets the split heads: (B,T,d) + (B,h,T,hd), (2,4,64) + (2,4,4,16) on the lesson model
fault-why-bias-w1-64 = x·W1 is (B,T,d_ff) and b1 is (d): the bias add refuses the shapes
fault-why-merge-no-transpose = every shape passes; a bare reshape of (B,h,T,hd) packs several tokens into each row, so a later token moves an earlier output
fault-why-no-causal-mask = every shape passes; each position reads the later ones, so a later token moves an earlier output
fault-why-skip-block1 = block 2 reads x0, not block 1's output: block 1's output reaches no later step
fault-why-norm-over-seq = the norm's mean and variance run over T: one token moves every other token's output, earlier ones too
fault-why-no-out-proj = every shape passes; each block holds d² + d fewer parameters than the formula of its declared architecture
fault-why-act-after-down = every shape, count and probe passes; block 1's output differs from the declared architecture's on the same weights
fault-why-ln-after-add = the residual add adds onto the norm's output, x = LN(x + f(x)), not onto the stream
fault-why-mlp-returns-input = the MLP's hidden layer departs from (B,T,d) and never returns: the update added is the MLP's input
fault-why-norm-over-batch = the norm's statistics run over B: batch element 1 moves batch element 0's outputs
fault-why-softmax-no-max = e^s overflows f32 past 88.7 on scores of a few hundred, so the weights hold inf and NaN (with --weights, q and k are the checkpoint's and the scores stay small: nothing to catch)
fault-why-down-to-ff = the MLP's output stays d_ff wide: (B,T,d_ff) where the stream is (B,T,d), (2,4,256) against (2,4,64)
fault-why-norm-no-cast-back = the norm's output is f32 where the stream is bf16
fault-why-softmax-no-cast-back = weights·v multiplies f32 by bf16, which a matrix product refuses (as PyTorch's matmul does)
fault-why-moe-capacity = at most ⌈B·T·k/E⌉ routes per expert come back (14 of 16 on lesson-moe), and whether a token keeps its expert depends on the tokens before it, across the batch too
fault-why-no-sliding-window = every shape passes; a token moves queries more than w − 1 positions after it, which the declared window hides from it
fault-why-window-off-by-one = every shape passes; the query w − 1 positions after a token, which the declared window lets read it, stays unchanged when it changes
fault-why-decode-no-append = every shape passes, the cache just stops growing; the new token's output (its logits, with a vocabulary) differs from the full forward's at its position
fault-why-decode-rope-at-zero = every shape passes; the new token meets each cached key at the wrong distance, so its output differs from the full forward's
fault-why-decode-mask-top-left = the mask is the same as the causal one while Tq = Tk, so the prefill passes; the decode step's output differs from the full forward's
fault-why-grad-tied-once = every gradient keeps its shape, (V,d) for wte; only finite differences of the loss see that wte's values moved the logits too
fault-why-softmax-grad-no-sub = every gradient keeps its shape; the scores' gradient no longer sums to 0 along each row, and finite differences of the loss disagree with it
fault-why-tp-no-allreduce = a partial sum has exactly the whole sum's shape, (B,T,d), so every shape check passes; only the devices' result compared with the one-device model's shows it
fault-why-sp-scatter-no-sum = a cut partial sum has exactly the reduce-scatter's shape, (B,T/N,d), so every shape check passes; only the devices' result compared with the one-device model's shows it
fault-why-pp-recv-no-wait = the buffer was allocated with the stream's shape, (B,T,d), so it has it whether or not the previous stage's output has arrived: every shape check passes; only the devices' result compared with the one-device model's shows it
fault-why-ep-return-order = the return brings back exactly as many rows as this device's tokens have routes, (b·T·k, d), whichever order they come in, and the routing check counts them all back: every shape check passes; only the devices' result compared with the one-device model's shows it (wherever a device's rows come back from two devices or more)
fault-why-vocab-no-mask = each device's part of the lookup is (B,T,d) whatever rows it holds, and so is their sum: every shape check passes; only the devices' result compared with the one-device model's shows it

## shapetrace faults: the columns

faults-col-fault = fault
faults-col-mistake = the mistake
faults-col-caught-by = caught by
faults-col-args = args
faults-at = at

## The Budget tab

ui-budget-title = Budget: parameters, FLOPs, bytes · c: pictures
ui-budget-tab = Budget
ui-budget-this-model = This model
ui-budget-col-this = this model
ui-budget-col-gpt2 = GPT-2 small
ui-budget-keys = ↑↓ field  ←→ change
ui-budget-type = e types a value
ui-budget-reset = g resets
ui-budget-bytes = bytes in { $dtype }; GPT-2 small at T = { $T }
ui-budget-foreign = A log of { $producer }: it holds the steps' shapes, not the model's weights, so there is nothing to count.
ui-budget-none = The budget of this model cannot be counted.
budget-attention-weights = attention weights / block
budget-ffn-weights = FFN weights / block
budget-ratio = FFN : attention
budget-block = block, biases + norms
budget-total = total parameters
budget-non-embedding = non-embedding
budget-flops-block = FLOPs/token/block matmul
budget-flops-attention = + attention at T
budget-ffn-share = FFN share of FLOPs
budget-forward = forward FLOPs / token
budget-training = training 6N+12LHQT
budget-weights = weights
budget-activations = activations
budget-kv-token = KV cache / token
budget-kv-context = KV cache at context
budget-grads = gradients (one per weight)
budget-adam = Adam state 8·N
budget-saved = saved for the backward
budget-train-step = training step in all

## The quiz

ui-quiz-title = Quiz
ui-quiz-step = step { $step }: { $path } = { $op }
ui-quiz-of = of { $from }
ui-quiz-which = Which ›{" "}
ui-quiz-predict = Predict its shape (sizes, axis names or both) ›{" "}
ui-quiz-keys = Enter answers · Esc skips · score { $right }/{ $asked }
ui-quiz-verdict-title = Quiz { $right }/{ $asked } · → goes on · z ends

## Presenter mode

ui-present-predict = predict the shape
ui-present-quiz-first = The quiz asks for the shape first.
ui-present-reveal = What shape comes out? Press → to reveal it.
ui-present-stops = ✗ { $check } stops the forward
ui-present-paused = autoplay paused (space resumes)
ui-present-autoplay = autoplay on (space pauses)
ui-present-step = step { $step } · { $total } steps
ui-present-after = after step { $step } · { $total } steps
ui-present-why = Why

## The stepper's remaining words: the Budget pictures, the heatmap, replays and the quiz's follow-ups

chart-part-embed = embed
chart-part-attn = attn
chart-part-MLP = MLP
chart-part-norms = norms
chart-part-other = other
chart-part-qkvo = qkvo
chart-part-T-term = T-term
chart-part-head = head
chart-total = total { $n }
chart-params-title = parameters · c: table
chart-flops-title = FLOPs/token, T={ $T }
chart-cross-encoder = T*={ $x } (two-way: no causal half)
chart-cross-d-ff = T*={ $x }=d_ff; causal ≈{ $causal }
chart-cross = T*={ $x }; causal ≈{ $causal }
chart-cross-none = no T-term or no MLP
chart-legend-attn = ⠿ attention T-term
chart-legend-mlp = ▄ MLP matmuls
chart-legend-total = • total
chart-curves-title = FLOPs/token by T: • total ⠿ attn ▄ MLP { $cross }

heat-query = query
heat-key = key
heat-head-keys = {"["} ] head
heat-masked = ╳ masked
heat-scroll = cols { $first }–{ $last } of { $cols }

formula-split-heads = split into { $heads } heads
formula-top-k = top-{ $k } of { $experts } experts
formula-softmax-experts = softmax over experts
formula-transpose-merge = transpose, merge heads
formula-reshape-no-transpose = reshape without transpose
formula-no-max = no max subtracted
formula-rotate = rotate by position
formula-every-token = for every token
formula-onto-tokens = onto tokens
formula-repeat-kv = repeat kv
formula-two-way = two-way
formula-tied = (tied)
formula-over = over

ui-status-replaying = replaying { $file }
ui-status-replaying-incomplete = replaying { $file } · incomplete log: { $events } events, no summary
ui-status-shapes-only = shapes only: a numeric run needs about { $estimate }, over --max-memory { $limit }

quiz-mistake-before-transpose = { $shape } is the layout before the transpose: heads must move in front of T so each of the { $h } heads gets its own { $t }×{ $t } table of scores
quiz-mistake-transposed = { $shape } is the transposed table: row i is query i's { $what ->
    [weights] weights over
   *[scores] scores against
} every key, so the queries come first: (B,h,Tq,Tk)
quiz-mistake-stream = { $shape } is the stream shape; scores compare every query with every key: (B,h,Tq,Tk), one { $t }×{ $t } table per head
quiz-mistake-one-table = { $shape } is one table per sequence; each of the { $h } heads makes its own: (B,h,Tq,Tk)
quiz-mistake-keeps-d = { $shape } keeps d_model; W1 is (d, d_ff) = ({ $d },{ $f }), so the hidden layer has d_ff = { $f } features (and b1 has { $f } entries, not { $d })
quiz-mistake-hidden = { $shape } is the hidden layer; W2 ({ $f },{ $d }) brings it back to d_model = { $d }, so the residual add x + FFN(x) fits
quiz-mistake-before-merge = { $shape } is the context before the merge: T moves back in front of the heads and the { $h } heads of { $hd } join into d = { $d }
quiz-mistake-halfway = { $shape } is halfway: after the transpose the heads must still be joined, { $h } × { $hd } = { $d }
quiz-mistake-before-split = { $shape } is the projection before the split; the split cuts its last axis into heads of hd = { $hd } and moves the heads in front of T
quiz-follow-up-which = your sizes fit more than one order: which of the { $count } { $size }s is { $axis }, the { $ordinals }? Type its position ({ $choices }), or name the axes { $template }
quiz-follow-up-name = your sizes fit more than one order: name the axes, { $template } with each ? replaced by a name

ui-quiz-wrong-is = ✗ { $says }; { $is }

## The status line

ui-status-charts-on = the Budget tab will draw its pictures: Tab to Budget
ui-status-charts-off = the Budget tab will show its table
ui-status-reveal-on = reveal mode: each next shape is hidden until → shows it · o ends it
ui-status-reveal-off = reveal mode off
ui-status-quiz-on = quiz on: predict each new shape before it is shown
ui-status-quiz-off = quiz off: { $right } of { $asked } right
ui-status-quiz-first = the quiz is on: z ends it first
ui-status-reveal-first = reveal mode is on: o ends it first
ui-status-count-quiz-first = the count quiz is on: z ends it first
ui-status-count-quiz-on = budget quiz on: predict each count before it is shown
ui-status-count-quiz-off = budget quiz off: { $right } of { $asked } right
ui-status-autoplay-end = autoplay reached the last step (space replays)
ui-quiz-right = ✓ right: { $path } is { $shape }
ui-quiz-skipped = skipped: { $path } is { $shape }
ui-quiz-is = { $path } is { $shape }
ui-quiz-also = also shown: { $n } { $n ->
    [one] step that keeps
   *[other] steps that keep
} { $shape }

## The labs' frames (their computations are the lessons' own, in English)

ui-probes-foreign = A log of { $producer }: the probes ran on that module when it was exported; their verdicts:
ui-probes-rule-causality = the whole model; no earlier position and no other batch element may change
ui-probes-rule-positionwise = each norm and MLP alone; only the moved token may change
ui-probes-each-token = each token in turn
ui-probes-token = token t={ $t }
ui-probes-title = Probes: { $name } · { $token } of batch 0 moved · ←→ token · ↑↓ probe
ui-probes-computing = computing… the model re-runs with { $token } moved; keys work
ui-probes-cannot = cannot probe this model: { $error }
ui-probes-tensor = tensor
ui-probes-batch = batch { $b }
ui-probes-fails = ✗ { $name } fails: rows marked ✗ changed that must not, ○ did not that must
ui-probes-holds = ✓ { $name } holds for token { $t }
ui-norms-hint = e edits x (e.g. 3,4 or 1,2,3,4) · LayerNorm centres then scales; RMSNorm only scales
ui-norms-title = Norms: LayerNorm against RMSNorm

## A terminal too small

ui-small-title = Terminal too small
ui-small-needs = shapetrace needs at least { $w }×{ $h };
ui-small-this = this one is { $w }×{ $h }.
ui-small-enlarge = Enlarge the window or reduce the font size.
ui-small-quit = q quits
ui-ffn-off = ReLU switched off unit(s) { $units }: only W2 rows of active units add to y.
ui-ffn-keys = → next product · ← back · G all · e x · x mistake · s gated
ui-ffn-mistake-on = ✗ mistake on: { $name } ({ $what }) · G shows its effect · x next
ui-ffn-head-keys = (e edits x · x mistake · s gated)
ui-ffn-mistake-head = ✗ mistake on: { $name } (x switches to the next)
ui-ffn-title = FFN by hand: { $what } · step { $step } of { $steps }
ui-edit-title = Edit
ui-edit-ffn = FFN: x (e.g. 2,-1), or d=4 f=8 seed=1 w1=1,1;0,-1 w2=1;1
ui-edit-norms = x for the norms (one or more numbers, e.g. 3,4)
ui-edit-budget = { $field } for the budget (e.g. 171)
ui-edit-keys = now { $now } · Enter applies · Esc cancels · Ctrl-U clears
ui-switch-activation = activation
ui-switch-norm = norm
ui-switch-placement = placement
ui-switch-fault = fault
ui-switch-model-file = model file
ui-switch-device = device
ui-switch-values = values
ui-status-foreign-switch = a log of { $producer }: its model is not shapetrace's, so a switch cannot re-trace it
ui-status-tracing = { $what }: tracing…
ui-status-file-bad = model file: { $error } · the last good trace stays
ui-status-values-from = values from { $label }
ui-status-stops = { $what } → { $value }: ✗ { $check } stops the forward at { $path }
ui-status-retraced = { $what } → { $value }: re-traced
ui-status-live = { $said } live from { $file }'s model · v goes back to the replay
ui-status-cannot = cannot switch { $what }: { $error }
ui-status-no-replay = no replay to go back to: v returns to a log opened with view
ui-status-replaying-again = replaying { $file } again

## The checks' details (the rest are English only, for now)

check-nothing = nothing to judge
check-nothing-stopped = nothing to judge: the forward stops at { $path }
check-stopped = the forward stops at { $path }; the check that stopped it judges it
check-probe-stopped = the forward stops at { $path }
check-op-shapes-pass = all { $ops } ops accepted their operands
check-residual-pass = { $n }/{ $n } residual adds are { $shape } + { $shape }, { $dtype }{ $parallel ->
    [0] {""}
   *[other] {" "}(parallel: 1 a block, of { $parallel } summed updates)
}
check-stream-pass = { $n ->
    [one] 1 stream tensor is
   *[other] { $n } stream tensors are
} { $shape } { $dtype }
check-wiring-pass = { $blocks ->
    [1] block1 reads the input
    [2] block1 reads the input and block2 block1's output
   *[other] block1 reads the input and blocks 2 to { $blocks } each the previous block's output
}
check-wiring-pass-stage = block{ $first } reads what the stage before sent (recv){ $more ->
    [0] {""}
   *[other] , and each block after it to block{ $blocks } the previous block's output
}
check-finite-pass = all values of { $n } tensors are finite
check-params-pass = the built { $total } parameters match the closed form, part by part ({ $parts } parts)
check-positionwise-pass = every norm and MLP of { $blocks } blocks changed only the token that changed ({ $tried } tokens tried)

## The Budget tab's count quiz (its questions are the lesson's, in English)

ui-budget-quiz-count = Your count ›{" "}
ui-budget-quiz-next = → next question · z ends the quiz
ui-budget-quiz-done = quiz done: { $right } of { $asked } right · z ends the quiz
ui-budget-quiz-keys = Enter answers · Esc skips
ui-budget-quiz-on = → goes on · z ends
ui-budget-quiz-title = Budget quiz { $right }/{ $asked } · { $keys }

## The header of another program's log

ui-foreign-model = B={ $B } T={ $T } d_model={ $d }  blocks={ $blocks }  { $placement }-LN declared  { $dtype }  from { $producer }
check-returns-none = nothing to judge: no sublayer completed{ $open ->
    [0] {""}
   *[other] ; { $open } more in the sublayer stopped at { $path }
}
check-returns-stayed = no completed sublayer left the stream shape{ $open ->
    [0] {""}
   *[other] ; { $open } more in the sublayer stopped at { $path }
}
check-returns-pass = all { $n } departures return to { $shape } before their residual add{ $open ->
    [0] {""}
   *[other] ; { $open } more in the sublayer stopped at { $path }
}
check-causality-pass = { $spread ->
    [two-way] two-way attention: changing a token reached every position of its sequence and no other batch element
   *[causal] changing a token changed no earlier position and no other batch element
}{ $mask ->
    [none] {""}
    [window] , and { $path } exactly where the sliding window of { $w } reads it
    [two-way] , and { $path } exactly where the two-way attention reads it
   *[causal] , and { $path } exactly where the causal mask reads it
} ({ $tried } tokens tried)
check-reference-plain-pass = every block's output ({ $n } compared) agrees with a plain f64 forward: max |Δ| { $delta } (allowed { $tol }·(1 + the output's largest |x|) in { $dtype })
check-decode-pass = { $n ->
    [one] the one decode step
   *[other] each of the { $n } decode steps
}, through the key/value cache, gives the { $what } of a full forward of the whole sequence without a cache at its position, and so does the prefill: max |Δ| { $delta } (allowed { $tol }·(1 + the largest |x|) in { $dtype }); the contract checks above judge the prefill and each decode step at (B,1,d)
check-reference-pass = every block's output ({ $n } compared) equals the declared architecture{ $fault ->
    [none] {""}
   *[other] {" "}(without { $fault })
}'s on the same weights and input

## The checks' failures and skips

judge-op-refused = { $at }{ $op } refused its operands: { $error }
judge-device-left = { $at }{ $op }: device { $device } stopped before handing in its part (see its own trace), so this device cannot go on
judge-op-dtype = { $at }{ $op } refused its operands: { $a } and { $b }: a matrix product needs one dtype; cast one of them
judge-stream-shape = { $at }stream tensor { $path } is { $got }, not { $want }
judge-stream-dtype = { $at }stream tensor { $path } is { $got } { $dtype }, not the stream's { $want }
judge-finite = { $at }{ $path } holds non-finite values (NaN or ±inf)
judge-residual-dtype = { $at }residual add { $stream } { $stream_dtype } + { $update } { $update_dtype }: both operands must be { $want }
judge-residual-shape = { $at }residual add { $operands }: both operands must be { $want }
check-residual-count = { $n } residual adds, expected { $want } ({ $per } per block){ $block ->
    [none] {""}
   *[other] ; { $block } makes { $adds }
}
check-returns-fail = { $path }: { $left } left { $shape } { $dtype } as { $as } { $as_dtype } and never came back
check-wiring-fail = { $who } reads { $reads } at { $path }, expected the previous output { $want }
check-wiring-normed = { $path } adds onto { $stream }{ $line ->
    [none] {""}
   *[other] {" "}at { $line }
}, a norm's output: a Pre-LN stream carries the sum x + f(LN(x)) itself, not a normed sum
check-wiring-unnormed = { $path } adds onto { $stream }{ $line ->
    [none] {""}
   *[other] {" "}at { $line }
}, a sum no norm has read: a Post-LN block norms each sum, x = LN(x + f(x)), and adds onto the normed one
check-fault-unjudged = --fault { $fault }: every check that catches it ({ $checks }) was skipped in this run ({ $why }), so the fault would pass unjudged; allowed: a run that judges them: --numeric (with a higher --max-memory if it needs more), or a smaller model (--seq, --layers, --d-model)
check-shape-only = shape-only run: no values
check-shape-only-compare = shape-only run: no values to compare
check-probe-no-tensor = nothing to judge: no tensor to compare
check-positionwise-fail = { $path }: changing token { $token } of batch 0 changed token { $pos } of batch { $batch } (|Δ| up to { $delta })
check-mask-name = { $mask ->
    [window] sliding window of { $w }
    [two-way] two-way attention
   *[causal] causal mask
}
check-causality-fail = { $path }: changing token { $token } of batch 0 { $what ->
    [missing] left query { $pos } unchanged, though the declared { $mask ->
        [window] sliding window of { $mw }
        [two-way] two-way attention
       *[causal] causal mask
    } lets it read token { $token }
    [batch] changed batch element { $batch }
    [window] changed position { $pos }, outside the sliding window of { $w } (rows { $token }..={ $last } may change)
   *[earlier] changed earlier position { $pos }
} (|Δ| up to { $delta })
check-params-fail = { $path }: built { $got } parameters, { $by } { $than } than the closed form { $formula } = { $want }
check-params-extra = { $path }: built { $got } parameters the declared architecture does not have
check-reference-plain-fail = { $path }: differs from a plain f64 forward on the same weights and input by |Δ| up to { $delta }, over the { $allowed } that { $dtype } allows there
check-decode-fail = { $path }: at position { $pos } a full forward without a cache gives other { $what }, |Δ| up to { $delta } over the { $allowed } allowed: the cache path computes something else
check-shard-pass = every device's residual adds, norms, embeddings and outputs ({ $n } tensors over { $devices } devices, each its own slice where it holds one) equal the one-device model's on the same weights and input: the largest |Δ| is { $delta } of the tensor's scale (allowed { $tol }){ $half ->
    [none] {""}
   *[other] ; this { $half } model is judged in f32, where a missing device's share cannot hide in the rounding
}
check-shard-fail = { $path } on device { $device } differs from the one-device model's by { $delta } of the tensor's scale (allowed { $tol }); every compared tensor before it agrees (the last: { $before }), so the devices and the one-device model part ways between that step and this one{ $half ->
    [none] {""}
   *[other] {" "}(this { $half } model judged in f32)
}
check-shard-none = not judged: no tensor of the devices' runs lies where the one-device model's does
check-grads-pass = every gradient ({ $n }) has its tensor's shape and every parameter has one; { $coords } coordinates of { $tensors } gradients agree with central finite differences of the loss in f64: the largest |Δ| used { $share } of its allowance ({ $tol } of the larger of the two and of the tensor's largest gradient, plus { $rounding }·ε·(1 + |L|)/h for the differences' own rounding)
check-grads-shapes = every gradient ({ $n }) has its tensor's shape and every parameter has one; the values are not compared: { $reason }
check-grads-fail = { $path }{ $at }: the backward gives { $backward }, central finite differences of the loss { $fd } (|Δ| { $delta }, allowed { $allowed }); every gradient before it agrees, so the backward of the step that read it broke: { $from }
check-grads-shape = { $path } is { $shape } but { $of } is { $expected }: a gradient has the shape of what it differentiates
check-grads-missing = { $param } { $shape } has no gradient: the backward never reached it
check-grads-log-values = the finite differences need the model's weights, which a log does not hold
check-grads-log-model = not judged: the log's header is not a model shapetrace can build, so its parameters' shapes are unknown
check-decode-noncausal = { $path }: at position { $pos }, inside the prompt, the { $what } differ from those of the same positions in the longer sequence by |Δ| up to { $delta }: the model lets a position read later tokens, so no cache can give what the full forward gives (see causality)
check-reference-plain-error = not compared: { $error }
check-reference-fail = { $path }: differs from the declared architecture{ $fault ->
    [none] {""}
   *[other] {" "}(without { $fault })
}'s{ $declared ->
    [same] {""}
   *[other] {" "}{ $declared }
} on the same weights and input (|Δ| up to { $delta })
check-routing-none = nothing to judge: no mixture of experts was reached
check-routing-shape-only = n_e is the data's: a shape-only run records each expert's bound (≤ B·T), not how many tokens it took
check-routing-lost = { $path }: { $taken } of { $routes } routes (B·T·k) came back
check-routing-sum = { $path }: token { $t }'s { $k } weights sum to { $sum }; each token's must sum to 1
check-routing-pass = every token's { $k } { $k ->
    [1] route
   *[other] routes
} reached an expert and came back ({ $routes } of { $routes } in each of { $mixtures } mixture(s)), { $unchecked ->
    [0] each token's weights summing to 1
   *[other] weights summing to 1 where kept ({ $unchecked } of { $mixtures } hold over 4096 weights, whose values a trace does not keep)
}
check-text = { $text }
check-alone = cannot run { $part } alone
check-probe-moved-stopped = the perturbed run stops at { $path }
check-model-invalid = the model is invalid: { $error }
check-too-large = model too large to re-run (limit { $limit })
check-alone-judge-op-refused = cannot run { $part } alone: { $at }{ $op } refused its operands: { $error }
check-alone-judge-op-dtype = cannot run { $part } alone: { $at }{ $op } refused its operands: { $a } and { $b }: a matrix product needs one dtype; cast one of them
check-alone-judge-stream-shape = cannot run { $part } alone: { $at }stream tensor { $path } is { $got }, not { $want }
check-alone-judge-stream-dtype = cannot run { $part } alone: { $at }stream tensor { $path } is { $got } { $dtype }, not the stream's { $want }
check-alone-judge-finite = cannot run { $part } alone: { $at }{ $path } holds non-finite values (NaN or ±inf)
check-alone-judge-residual-dtype = cannot run { $part } alone: { $at }residual add { $stream } { $stream_dtype } + { $update } { $update_dtype }: both operands must be { $want }
check-alone-judge-residual-shape = cannot run { $part } alone: { $at }residual add { $operands }: both operands must be { $want }
check-alone-check-text = cannot run { $part } alone: { $text }

## The Norms tab's words (its numbers and formulas are the lesson's)

lab-norms-layer = LayerNorm: subtract the mean, divide by the standard deviation
lab-norms-rms = RMSNorm: divide by the root mean square; no centring
lab-norms-constant = x is constant: LayerNorm maps it to 0 (only eps keeps the division finite).
lab-norms-layer-gives = LayerNorm gives mean 0 and RMS 1: the offset of x is gone.
lab-norms-rms-gives = RMSNorm gives RMS 1 and keeps the direction of x (y ∝ x).

## The Budget tab's count quiz: its verdicts (its questions and mistakes' notes are the quiz's, in English)

lab-budget-quiz-of = { $n } of { $total }: { $ask }
lab-budget-quiz-right = ✓ right: { $truth }
lab-budget-quiz-wrong = ✗ { $says }
lab-budget-quiz-skipped = skipped: { $truth }

## The split view (--compare RIGHT)

ui-hint-step-both = step both
ui-hint-differs = differs
ui-hint-side = side
ui-hint-one-model = one model
help-split = --compare: the split view / the left model alone
help-side = --compare: a m p f switch the left / right model
ui-split-no-step = no such step
ui-split-reads = #{ $step } { $op } · reads { $reads }
ui-split-reads-nothing = nothing
ui-split-summary = { $same } same · { $changed } changed · { $only_left } only { $left } · { $only_right } only { $right }
ui-split-counts-same = parameters, FLOPs and bytes the same
ui-split-bottom = b: a m p f switch { $glyph } { $name } · | one model
ui-split-same = same
ui-split-changed = ≠ { $what }
ui-split-only-left = ◀ only { $name }
ui-split-only-right = only { $name } ▶
ui-change-shape = shape
ui-change-dtype = dtype
ui-change-op = op
ui-change-inputs = inputs
ui-change-position = position
ui-count-parameters = parameters
ui-count-attention-weights-per-block = attention weights per block
ui-count-MLP-weights-per-block = MLP weights per block
ui-count-forward-FLOPs-per-token = forward FLOPs per token
ui-count-weight-bytes = weight bytes
ui-count-activation-bytes-of-one-forward = activation bytes of one forward
ui-split-now-switch = a m p f now switch { $name }
ui-split-switched = { $name } { $what } → { $value }
ui-split-quiz-first = the quiz and reveal mode follow one model: z or o ends them first
ui-split-needs-compare = | and b need a second model: shapetrace --compare RIGHT
ui-status-no-further = no further { $what } in this direction
ui-what-departure = departure
ui-what-pass = pass
ui-pass-prefill = prefill: the prompt's { $T } tokens at once
ui-pass-decode = decode { $n }/{ $steps }: one token at position { $pos }
ui-what-residual-add = residual add
ui-what-differing-step = differing step

## Another program's log: its evidence, its summary, its operands

check-leak-cause = { $cause ->
    [view] a view without its transpose: .view(B, H, T, hd) cuts positions into heads; split with .view(B, T, H, hd).transpose(1, 2) and merge with .transpose(1, 2).contiguous().view(B, T, d)
    [softmax] a softmax over the wrong axis (dim=-2 normalises over the queries; use dim=-1), or no causal mask before it
    [mask] a mask of the wrong shape or direction (triu where tril belongs, a mask over (T, T) sliced from the wrong corner)
    [reduction] a reduction over the positions axis (dim=1) instead of the features (dim=-1)
    [batch] a reduction over the batch axis (dim=0): a norm or mean over the batch mixes one sequence into another; take it over the features (dim=-1)
    [product] a product over the wrong axes (k.transpose(1, 2) where (-2, -1) belongs, an einsum that sums over t)
   *[other] an op that reads across rows it must keep apart: check which axis it takes
}
check-leak-at = { $op }{ $line ->
    [none] {""}
   *[other] {" "}at { $line }
}
check-evidence-causality-fail = { check-causality-fail }; first changed by { check-leak-at }: likely { check-leak-cause }{ check-heads-cut }
check-heads-cut = { $cut ->
    [none] {""}
   *[other] ; the scores at { $scores } are { $scores_axes }{ $pair ->
        [heads] , heads against heads
       *[other] {""}
    }, not (B, h, Tq, Tk): the heads were cut at { $cut } without transpose(1, 2)
}
check-evidence-positionwise-fail = { $module } run alone: { check-positionwise-fail }; { check-leak-at } inside it mixed rows: likely { check-leak-cause }
check-evidence-none = the log holds no evidence for { $check }{ $says ->
    [none] {""}
   *[other] ; its summary's "{ $says }" alone is not believed
}
check-evidence-skipped = the log's probe did not run: { $reason }
check-summary-disagree = the log's summary says { $says }, but its evidence says { $judged }
check-disagrees-check-causality-pass = { check-summary-disagree }: { check-causality-pass }
check-disagrees-check-positionwise-pass = { check-summary-disagree }: { check-positionwise-pass }
check-disagrees-check-evidence-causality-fail = { check-summary-disagree }: { check-evidence-causality-fail }
check-disagrees-check-evidence-positionwise-fail = { check-summary-disagree }: { check-evidence-positionwise-fail }
check-disagrees-check-text = { check-summary-disagree }: { $text }
check-summary-count = the log's summary says { $said } { $what }, its events hold { $found }
check-op-shapes-recorded = { $path }{ $line ->
    [none] {""}
   *[other] {" "}({ $line })
}: { $op } of { $operands } gives { $want }, but the log records { $got }
check-op-shapes-refused = { $path }{ $line ->
    [none] {""}
   *[other] {" "}({ $line })
}: { $op } refuses { $operands }: { $error }, yet the log records { $got }
check-residual-operand-from = { $detail }; the { $role ->
    [stream] stream
   *[update] update
} { $operand } { $shape } comes from { $line }
check-residual-replaced = { $module }'s output replaced the stream{ $line ->
    [none] {""}
   *[other] {" "}at { $line }
}: write { $add } ({ $n } residual adds, expected { $want }, { $per } per block; { $block } makes { $adds })

why-all-reduce = The all-reduce: each of the { $N } devices holds a partial sum of this output, its own heads' or hidden units' share of the row-parallel matmul, of the full shape { $shape }. Only their sum is the layer's output, so the devices add theirs together{ $bias ->
    [1] {" "}and the bias, which every device holds whole, is added once after the sum
   *[other] {""}
}. The shape was already (B,T,d); what changes is that every device now holds the same, whole value. In a ring each device sends and receives 2·(N−1)/N of it: { $bytes }.

why-all-gather = The all-gather: each of the { $N } devices held one slice of the positions, and what comes next needs every position (a sublayer's matmuls, which mix the positions' features, or the model's whole output), so each sends its slice to the others and all hold the whole { $shape }. In a ring each device sends (N−1)/N of it: { $bytes }.

why-reduce-scatter = The reduce-scatter: each of the { $N } devices holds a partial sum over every position; they are summed, and each device keeps only its own slice of the positions, { $shape }, for the norm and the residual add that work position by position. It sends (N−1)/N of the partial sums: { $bytes }, half an all-reduce's.

why-scatter = Sequence parallelism starts here: every device holds the same (B,T,d), and this one keeps part { $part } of { $N } of the positions, { $shape }, with no communication. Norms and residual adds work position by position, so each device does its slice alone.

why-scatter-batch = Expert parallelism starts here: outside the experts the { $N } devices are data-parallel, each running the whole attention on its own sequences. Every device holds the same (B,T,d) and keeps part { $part } of { $N } of the sequences, { $shape }, with no communication. (In training each device reads its own batch from the start; the lesson cuts one batch so the devices can be checked against one.)

why-all-gather-batch = The all-gather of the sequences: each of the { $N } devices ran its own sequences, and their outputs side by side are the whole batch's, { $shape }, as one device would give it. A data-parallel run keeps each device's own; the lesson gathers them so the output can be read and checked as one model's. In a ring each device sends (N−1)/N of it: { $bytes }.

why-all-to-all-dispatch = Expert { $e }'s batch, from every device: each of the { $N } devices holds its own tokens and E/N of the experts, so every device cuts out its rows for this expert and sends them here, and this device stacks what arrives in device order: rows { $rows } = { $n }, { $shape }. The counts are the data's (the router chose them on each device), and { $n } rows is what expert { $e } takes in the one-device model; { $bytes } came from the other devices.

why-all-to-all-return = The experts' outputs go home: this device's { $E ->
    [one] expert sends
   *[other] { $E } experts send
} each device's rows back to it, and from every device's experts this device gets the rows of its own tokens (rows { $rows }, device order, so in expert order), { $shape }: one row per route, b·T·k = { $routes }, whatever the data chose. { $bytes } came from the other devices.

why-all-to-all-return-bound = The experts' outputs go home: this device's { $E ->
    [one] expert sends
   *[other] { $E } experts send
} each device's rows back to it, and from every device's experts this device gets the rows of its own tokens, in expert order, { $shape }: one row per route, b·T·k = { $routes }, whatever the data chose. Which device's experts send how many is the data's, known only once there are values; with the routing balanced, about { $bytes } come from the other devices.

why-combine-packed = Each route's row goes back to its token, times the token's weight for that expert, and { $k ->
    [one] a token's one share is its update
   *[other] a token's { $k } shares are summed
}: { $shape }, this device's part of the stream again. The rows arrive packed in expert order; the token ids say which run of rows is which expert's, so { $slots } rows should be here, and the shape says they are.

why-send = Pipeline parallelism: this stage's blocks end here, and the next stage (stage { $stage }) holds the blocks after them, on another device. The stream { $shape } (this device's, all of it) is sent to it point to point ({ $bytes }), and this device has nothing more to compute in this forward: in training it goes on to its next micro-batch.

why-recv = Pipeline parallelism: the blocks before this stage's live on the device of stage { $stage }. This device allocates a buffer of the shape it expects, { $shape }, and the previous stage's output arrives in it; nothing else about that output reaches this device. Its shape is the contract between the stages: the stream's, as this device holds it.

## ascii and presenter: the note under a why the presenter has no room for
ui-present-why-more = … more in the Detail pane (P, then w)

## cli: the command line's tables, verdicts, notes and refusals (check, trace, params, view, errors)

cli-head-step = step
cli-head-path = path
cli-head-op = op
cli-head-shape = shape
cli-head-dtype = dtype
cli-head-marker = marker
cli-marker-add-ok = ✓ add { $operands }
cli-marker-add-fail = ✗ add { $operands }
cli-marker-leaves = ◆ leaves { $what }
cli-marker-returns = ↩ returns
cli-op-at = { $op } at { $line }
cli-failure-stops = ✗ { $check } stops the forward: { $shapes }
cli-failure-with = {" "}with{" "}
cli-headline-hold = all { $held } checks hold
cli-headline-hold-skipped = { $held } checks hold, { $skipped } skipped
cli-headline-fail = { $failed } of { $total } checks fail
cli-headline-fail-skipped = { $failed } of { $total } checks fail, { $skipped } skipped
cli-check-line = { $name } ({ $fault }): { $headline }
cli-fault-some = fault { $fault }
cli-fault-none = no fault
cli-note = note: { $note }
cli-params-model = model
cli-params-total = { $name }: { $total } parameters ({ $nobias } without biases)
cli-params-closed-matches = ✓ matches the closed form of the declared architecture: { $closed }
cli-params-closed-differs = ✗ differs from the closed form of the declared architecture: { $closed }
cli-params-parameters = Parameters (rows under block. are one block)
cli-params-ln-f = ln_f (final norm)
cli-params-ln-f-note = its weight and bias
cli-params-sum = total
cli-params-sum-no-bias = total without biases
cli-params-non-embedding = non-embedding
cli-params-minus-wpe = minus wpe (nanoGPT)
cli-params-minus-wte-wpe = minus wte and wpe (scaling laws)
cli-params-minus-head = minus wte, wpe and the untied LM head
cli-params-one-block = One block
cli-params-block-weights = block weights
cli-params-block-weights-note = attention + MLP weights, no biases or norms
cli-params-block-no-bias = block without biases
cli-params-ratio = MLP : attention weights = { $ratio } : 1 (MLP { $mlp } of the weights, attention { $attention })
cli-flops-block = Forward FLOPs per token, one block (T = { $t })
cli-flops-window-exact = window { $window } exact
cli-flops-causal-exact = causal exact
cli-flops-qkvo = attention q, k, v, o matmuls
cli-flops-mlp = MLP matmuls
cli-flops-matmuls = matmuls, 2 per weight
cli-flops-weights = 2·{ $n } weights
cli-flops-scores = attention scores + weighted sum
cli-flops-by-sublayer = by sublayer: attention { $attention }, MLP { $mlp }
cli-flops-model = Forward FLOPs, whole model
cli-flops-per-token = per token
cli-flops-per-sequence = per sequence of { $t }
cli-flops-and = { $a }, { $b }
cli-flops-training = Training FLOPs per token (forward + backward)
cli-flops-three-forward = 3 × forward
cli-flops-backward-twice = backward ≈ 2 × forward
cli-kv-title = Key/value cache while decoding (one sequence: every layer keeps k and v of every position)
cli-kv-at-context = at context { $ctx }
cli-kv-at-context-capped = at context { $ctx }, each window's ring capped
cli-memory-ep-batch = B/N = { $n } sequences on this device
cli-memory-title = Memory (activations: every traced tensor at { $batch }, T = { $t })
cli-memory-weights = weights
cli-memory-activations = activations
cli-usage-needs-value = { $arg } needs a value, none was given
cli-usage-invalid-value = invalid value '{ $value }' for { $arg }{ $why }
cli-usage-missing = missing required argument { $arg }
cli-usage-unexpected = unexpected argument '{ $arg }'
cli-usage-unknown-command = unknown command '{ $command }'
cli-usage-twice = { $arg } is given twice; allowed: once
cli-usage-conflict = { $arg } cannot be used with { $other }
cli-usage-conflict-another = { $arg } cannot be used with another argument
cli-usage-utf8 = argument '{ $arg }' is not valid UTF-8; allowed: UTF-8 text
cli-usage-no-equals = { $arg } needs '=' before its value
cli-usage-too-many = unexpected value '{ $value }' for { $arg }
cli-usage-wrong-number = { $arg } takes { $want } values, given { $given }
cli-usage-allowed = { $line }; allowed: { $allowed }
cli-usage-did-you-mean = { $line }; did you mean { $suggested }?
cli-usage-see-help = { $line } (see shapetrace --help)
cli-usage-invalid = invalid arguments
cli-unknown-name = unknown { $what } '{ $got }'; allowed: { $allowed }
cli-unknown-lang = allowed: en, zh-TW (or zh_TW)
cli-refuse-watch-alone = --watch re-traces the stepper's model file; allowed: shapetrace --config FILE --watch (no subcommand)
cli-refuse-watch-flag = --watch re-reads the model file alone, so { $flag } does not apply; allowed: --watch with --config and model flags
cli-refuse-compare-stepper = --compare opens the stepper's split view; allowed: shapetrace [model flags] --compare RIGHT (no subcommand, no --watch); for text: shapetrace compare LEFT RIGHT
cli-refuse-faults-flag = faults lists every teaching fault with the flags each needs, so { $flag } does not apply; allowed: --format, --lang
cli-refuse-package-flag = completions and man describe every flag, so { $flag } does not apply; allowed: shapetrace completions SHELL, shapetrace man [COMMAND]
cli-refuse-check-log-flag = check --log judges the log as written, so { $flag } does not apply; allowed with --log: --format
cli-refuse-params-inputs = --weights and --input do not apply to params, which counts from the config alone; allowed with them: trace, check, probes and the stepper
cli-refuse-grads-out = --grads-out writes the backward's gradients; allowed: --grads-out with --backward
cli-refuse-values = --values keeps tensor values in JSON events; allowed only with --format json on a numeric run
cli-refuse-grads-out-run = --grads-out needs a numeric run whose forward completes; this one { $how ->
    [stopped] stopped at a failed check
   *[shapes] traced shapes only
} (see shapetrace check)
cli-refuse-output-run = --output { $path } needs a run that completes; this one stopped at a failed check (see shapetrace check)
cli-refuse-compare-flag = compare takes its two models as LEFT and RIGHT, so { $flag } does not apply; allowed: model flags such as --seq or --d-model, which apply to both
cli-refuse-compare-numeric = compare traces shapes only, so --numeric does not apply; allowed: --shape-only (what compare does anyway) and model flags such as --seq or --d-model
cli-refuse-compare-logs-flag = compare LEFT and RIGHT are both trace logs, compared as written, so { $flag } does not apply; allowed: --format and --out
cli-refuse-compare-html-log = compare --format html draws each side's model settings and blocks, which a trace log does not hold; allowed with a log side: --format table, json or markdown
cli-refuse-side = neither a preset nor a model file; allowed: { $presets } or a path to a .toml or config.json (- for standard input)
cli-group-attention-weights = attention weights
cli-group-mlp-weights = MLP weights
cli-group-attention = attention
cli-group-mlp = MLP
cli-group-norms = norms
cli-group-block = block
cli-group-blocks = blocks
cli-params-tied = tied to wte = 0
cli-flops-per-token-head = L·block + 2·V·d (LM head) = { $l }·{ $k } + { $h }
cli-what-preset = preset
cli-what-fault = fault
cli-what-activation = activation
cli-what-check = check
cli-what-dtype = dtype
cli-what-head = head
cli-what-norm = norm
cli-what-placement = placement
cli-what-positions = positions
cli-what-qkv-fusion = qkv fusion

## stepper and labs: reveal mode, the typing footer, the FFN and Norms labs, the count quiz

ui-detail-hidden-reveal = shape hidden: → reveals it
lab-mistake-none = computed correctly
lab-mistake-rows = x multiplied by the rows of W1 instead of its columns
lab-mistake-relu-after-w2 = the activation applied after W2 (Wd) instead of before it
lab-ffn-title = FFN by hand: { $what }
lab-ffn-shape = d = { $d } → { $f } → { $dout }, { $act }, no biases
lab-ffn-act-gated = gated (SwiGLU)
lab-ffn-feeds = ({ $rows }×{ $cols }: column j feeds unit j)
lab-ffn-adds = ({ $rows }×{ $cols }: row j is what unit j adds)
lab-ffn-head-hidden = { $z } = x·{ $a } (x against each column of { $a })
lab-ffn-head-rows = { $z } = x·{ $a }ᵀ (✗ x against each ROW of { $a })
lab-ffn-head-no-act = h (✗ no activation before { $b })
lab-ffn-head-act-after = ✗ the activation after { $b }
lab-ffn-head-residual = residual: the FFN output is added to x
lab-ffn-residual = residual
lab-ffn-relu-none = { $h }: every z is positive, so ReLU changes nothing
lab-ffn-relu-one = { $h }: unit { $unit } is switched off
lab-ffn-relu-many = { $h }: units { $units } and { $last } are switched off
lab-ffn-step-off = : switched off
lab-ffn-step-no-relu = {" "}(no ReLU yet)
lab-ffn-step-no-silu = {" "}(no silu yet)
lab-ffn-cannot-add = x + y = ({ $d }) + ({ $dout }) ✗ cannot be added: x has { $d } features, y has { $dout }. { $b } maps { $f } → { $dout }, so this MLP cannot sit on a residual stream: the add needs { $b } of shape ({ $f }, { $d }), mapping back to d = { $d }.
lab-ffn-mistake = ✗ mistake { $name }: { $what }
lab-ffn-same = { $name } = { $v } (same)
lab-ffn-correct = { $name } = { $v } (correct { $good })
lab-ffn-hides = this x hides the mistake: try another
lab-ffn-list = {", "}
lab-ffn-stopped = x has { $d } numbers but each row of { $w } has { $f }: the products do not pair up, so this mistake stops at the first step. It goes unnoticed only when d = f (a square { $w }); each column has { $d } numbers, one per entry of x.
lab-ffn-weights = Weights, d = { $d }, f = { $f } (matrices only, as the lesson counts: no biases; norms and embeddings are outside the count)
lab-ffn-count-mlp = MLP
lab-ffn-count-gated = gated MLP
lab-ffn-count-attention = attention
lab-ffn-count-block = block
lab-ffn-count-gated-block = gated block
lab-ffn-count-same-f = (1.5× at the same f)
lab-ffn-count-qkvo = (Q, K, V and O)
lab-ffn-count-biases = biases, not counted above, would add f + d = { $mlp } to the MLP (gated 2·f + d = { $gated })
lab-ffn-these = these matrices: { $sum } = { $n } weights; with { $b } mapping back to d it would be 2·d·f = { $mlp }
lab-probe-question = Predict first: does a position-wise MLP directly average neighbouring tokens?
lab-probe-setup = The probe: 3 tokens through the same MLP (computed correctly); token { $moved } moves by +1 in every feature.
lab-probe-token = token { $t }  x = { $x }   y = { $before } → { $after }   { $mark }
lab-probe-moved-changed = ● changed: it moved
lab-probe-moved-same = · unchanged, though it moved
lab-probe-other-changed = ✗ changed: it reads another token
lab-probe-other-same = · unchanged
lab-probe-no = Answer: no. Only the moved token's output changed: row t of the output depends on row t of the input alone (is_positionwise over 3 random moves: true). All mixing between positions happens in attention.
lab-probe-yes = Answer: yes: another token's output changed, so this function mixes positions (is_positionwise: false).
lab-norms-mean = mean
lab-norms-var = var
lab-count-plain = { $text }
lab-count-not-it = { $text } is not it: { $truth }
lab-count-ask-mlp = This model: how many MLP weights in one block (matrices, no biases)?
lab-count-ask-swiglu = This model's MLP as SwiGLU (three matrices) at the matched width d_ff' = round(2/3·{ $f }) = { $matched }: how many MLP weights per block?
lab-count-ask-attn = GPT-2 small (d = { $d }): how many attention weights in one block (matrices, no biases)?
lab-count-ask-total = GPT-2 small: how many parameters in all?
lab-count-ask-share = GPT-2 small at T = { $T }: what share of one block's FLOPs is the FFN's, in %?
lab-count-formula-mlp = { $k } matrices of d·d_ff = { $d }·{ $f }
lab-count-formula-share = FFN matmul FLOPs / (all matmul FLOPs + the score and weighted-sum products)
lab-count-only-w1 = { $n } counts only W1 (d·d_ff = { $d }·{ $f }); the MLP has { $gated ->
    [yes] three
   *[no] two
} matrices of that size
lab-count-swiglu-kept-4d = { $n } is SwiGLU kept at d_ff = 4·d = { $f4 }; this one's d_ff is { $f }
lab-count-three-matrices = { $n } is three matrices, as SwiGLU at d_ff = { $f } (3·d·d_ff); this MLP ({ $act }) has two
lab-count-biases = { $n } includes the biases; the row counts the matrices only
lab-count-swiglu-kept = { $n } is SwiGLU kept at d_ff = { $f } (3·{ $d }·{ $f }); the matched width is { $matched }
lab-count-two-matrix = { $n } is the two-matrix MLP at d_ff = { $f }; SwiGLU has three at { $matched }
lab-count-no-o = { $n } is 3·d²: q, k and v, but the output projection O is a fourth d×d matrix
lab-count-no-wpe = { $n } leaves out wpe (nanoGPT's count); the total counts it
lab-count-lm-head = { $n } adds a separate LM head (V·d = { $vd }); GPT-2 ties it to wte, so it adds nothing
lab-count-param-share = { $p }% is the FFN's share of the parameters; QKᵀ and the weighted sum cost FLOPs with no weights, so its FLOP share is lower
lab-count-not-count = '{ $text }' is not an exact count; allowed: a whole number, e.g. 16384, 16,384 or 16_384
lab-count-not-percent = '{ $text }' is not a percentage; allowed: e.g. 54.5 or 54.5%
ui-hint-text = typed as text, q l h too
ui-hint-clear = clear
ui-mark-add-ok-short = ✓ add
ui-mark-add-bad-short = ✗ add

# The library's errors (shapetrace::Error and the errors it wraps): each
# one's Display is its message here, and the CLI words it in the user's
# language. Arguments a user typed are passed as text, as typed.
err-read = cannot read { $path }: { $reason }
err-file-too-large = { $path } is { $size } bytes; allowed: a model file of at most { $max } bytes
err-npy-corrupt = { $path } is not a valid .npy file: { $reason }; allowed: { $allowed }
err-npy-dtype = { $path } holds dtype '{ $descr }'; allowed: '<f4' (float32, little-endian)
err-npy-ids-dtype = { $path } holds dtype '{ $descr }'; allowed: '<i8' (int64) or '<i4' (int32), little-endian
err-npy-fortran = { $path } is in Fortran order; allowed: C order (numpy.ascontiguousarray)
err-tokens-empty = --tokens '{ $input }' holds no ids; allowed: ids like '1,2,3;4,5,6' (rows split by ';', ids by ',') or an int64 .npy of shape (B, T)
err-tokens-empty-row = --tokens row { $row } is empty; allowed: one or more ids in every row, ids like '1,2,3;4,5,6' (rows split by ';', ids by ',') or an int64 .npy of shape (B, T)
err-tokens-item = --tokens item '{ $item }' at ({ $row }, { $col }) { $why ->
    [empty] is empty
    [negative] is negative
    [large] is too large
   *[whole] is not a whole number
}; allowed: ids 0 to V − 1 (whole numbers), or the path of an int64 .npy
err-tokens-negative = { $path } holds token id { $id } at ({ $row }, { $col }); allowed: ids 0 or more
err-tokens-ragged = --tokens row { $row } has { $len } ids but row 0 has { $first }; allowed: every row of one length T
err-tokens-rank = { $path } holds an array of shape { $shape }; allowed: (B, T) or (T,)
err-tokens-too-many = --tokens holds { $count } ids; allowed: at most { $max } (1 << 20)
err-tokens-range = token id { $id } at ({ $row }, { $col }) is out of range; allowed: { $vocab ->
    [0] none (vocab 0)
   *[other] 0 to { $max } (vocab { $vocab })
}
err-tokens-and-input = --tokens conflicts with --input: a run starts at the token ids or at x0; allowed: one of them
err-tokens-no-vocab = --tokens needs a model with a vocabulary; allowed: --vocab V, --preset lesson-lm or a gpt2 preset, a config.json, or a checkpoint with wte
err-in-model-file = { $inner } (model from { $path })
err-input-shape = --input is { $got }, but the model's stream is { $want }; allowed: (B, T, d_model) with d_model { $d }
err-decode-input = --decode { $steps } with --input: a decode step feeds a new token, and a given x0 (B, T, d_model) holds only the prompt; allowed: --decode with --tokens or the seeded input, or --input without --decode
err-input-rank = --input is { $got }; allowed: a rank-3 array (B, T, d_model)
err-input-dims = --{ $flag } { $value } contradicts { $from } { $path }, whose { $dim } is { $file }; allowed: --{ $flag } { $file }, or no --{ $flag } (B and T come from { $from })
err-cancelled = the run was cancelled
err-config-zero = { $name } must be at least 1 (got 0)
err-config-too-large = { $name } { $got } is too large; allowed: 1..={ $max }
err-config-heads = d_model { $d } is not divisible by heads { $heads }; allowed heads: { $allowed }
err-config-kv-heads = heads { $heads } is not divisible by kv-heads { $kv }; allowed kv-heads: { $allowed }
err-config-seq = seq { $seq } is longer than context { $context }; allowed: seq 1..={ $context }, or raise --context
err-config-eps = eps { $got } must be a finite number > 0
err-config-rope-theta = rope_theta { $got } must be a finite number > 1
err-config-parallel = parallel residuals need placement pre (got { $got }); allowed: placement pre with parallel
err-config-odd-rotary = head_dim { $hd } is odd; rotary positions turn pairs of features, so allowed: an even head_dim
err-config-window-encoder = window { $window } needs a decoder: an encoder's attention reads every position; allowed: window 0 with encoder
err-config-too-big = a numeric run ({ $why }) needs about { $need } of memory, over the --max-memory limit of { $limit }; raise --max-memory, or lower the dimensions
err-config-conflict = { $a } conflicts with { $b }: { $b } needs a numeric run; drop one of them
err-config-split = { $field } { $got } is not divisible by { $by } { $n }; allowed { $by }: { $allowed }
err-config-stages = layers { $got } is not divisible by pp { $pp }; allowed pp: { $allowed }

# params on a model split across devices (--tp, --pp, --ep, --sp).
cli-split-over = Split over { $n } devices ({ $how }): every count below is device { $device }'s
cli-split-how-ep = expert parallel: { $held } of { $experts } experts and { $b } of { $batch } sequences on each
cli-split-how = { $form ->
    [tp-pp] tensor parallel { $tp }{ $sp } × pipeline { $pp } stages
    [pp] pipeline { $pp } stages
   *[tp] tensor parallel{ $sp }
}
cli-split-sp = and sequence parallel
cli-split-vocab = Vocabulary { $v }{ $pad ->
    [one] , padded to { $padded } (1 row of zeros, --pad-vocab)
    [many] , padded to { $padded } ({ $zeros } rows of zeros, --pad-vocab)
   *[none] {""}
}: { $rows } rows of wte (and of an untied head) on each device; the lookup all-reduced, the logits all-gathered
cli-pipe-stages = Pipeline: { $pp } stages of { $blocks ->
    [1] 1 block
   *[other] { $blocks } blocks
}; device { $device } is stage { $stage } of { $pp }, blocks { $from }..={ $to }{ $end ->
    [first] , where the input enters
    [last] , where the output leaves
   *[none] {""}
}
cli-pipe-bubble = bubble (M−1)/(m+M−1) = ({ $pp }−1)/({ $m }+{ $pp }−1) = { $idle }/{ $of } = { $share } of a step idle, with m = { $m } micro-batches (--micro-batches)
cli-pipe-in-flight = in training, 1F1B keeps the activations of min(M−s, m) = min({ $pp }−{ $s }, { $m }) = { $n } { $n ->
    [1] micro-batch
   *[other] micro-batches
} in flight on this stage (s from 0; GPipe: all { $m }): { $n } × the activations under Memory
cli-comm-title = Communication per forward ({ $how })
cli-comm-how-ep = what this device sends; an all-to-all receives as much only when the routing is balanced, as assumed here
cli-comm-how-pp = what this device sends; a ring receives as much, a recv receives what the stage before sent
cli-comm-how-ring = each step sends and receives as much; a ring
cli-comm-step = step
cli-comm-count = count
cli-comm-each = each sends
cli-comm-all-reduce = 2·(N−1)/N of it
cli-comm-send = all of it, to the next stage
cli-comm-recv = nothing: it receives the whole
cli-comm-dispatch = (N−1)/N of its routes to one expert slot, routing balanced (shape: the bound, B·T rows)
cli-comm-return = (N−1)/N of its routes' rows, routing balanced
cli-comm-gather = (N−1)/N of the whole
cli-comm-one-block = one block
cli-comm-one-forward = one forward
cli-params-active = active per token
cli-params-active-held = this device's total with its { $held } experts a block counted as the { $k } a token runs, on whichever device holds them
cli-params-active-skips = total minus { $skipped } of { $experts } experts a block, which a token skips
cli-kv-mha = MHA would need { $bytes } B per token in { $dtype } (2·L·h·hd·bytes, h = { $heads }): the { $kv } K/V heads cache { $times }× less
cli-kv-window = sliding window { $window }: { $windowed } of { $layers } layers { $windowed ->
    [1] keeps
   *[other] keep
} at most { $window } positions, a ring (so the cache at context is less than per token × context)
