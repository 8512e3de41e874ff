# shapetrace：每一步的原因與步進器的畫面文字，繁體中文 (zh-TW)。
# 與 en.ftl 的鍵完全相同；缺少的鍵會退回英文。
#
# 術語表（依第 47 日活動的用語）：
#   FFN / MLP              前饋網絡（按位置前饋網絡）
#   position-wise          按位置
#   residual / residual add / residual stream
#                          殘差 / 殘差相加 / 殘差流
#   token                  詞元          attention     注意力
#   head                   頭            scores        得分
#   query / key / value    查詢 / 鍵 / 值
#   hidden layer / unit    隱藏層 / 隱藏單元
#   activation             激活函數      gate          門控
#   weight / bias          權重 / 偏置   parameter count 參數量
#   block                  模組 (Block)  embedding     嵌入
#   up / down projection   上投影 / 下投影  output projection 輸出投影
#   shape / tensor / dtype 形狀 / 張量 / 數據類型 (dtype)
#   vocabulary / context   詞表 / 上下文 encoder       編碼器
#   norm                   Norm（LayerNorm、RMSNorm 保留原名，如課程；不譯作 Norm）
#   quit                   退出（離開只指形狀離開 (B,T,d)）
#   row / column           列 / 行（臺灣用法；課程講義以「列」稱 column，故前饋網絡實驗附上英文）
#   check / probe / fault  檢查 / 探針 / 故障
#   departure / return     離開 (B,T,d) / 返回 (B,T,d)
# 張量路徑、運算名、形狀、軸字母與數字一律不翻譯。
## 步驟

why-input = x0 是模型的輸入：{ $B } 個序列，每個序列 { $T } 個詞元，每個詞元是 d_model { $d } 個數的向量。每個模組都接收這個 (B,T,d) 形狀 { $shape } 並原樣交回，所以模組可以堆疊。

why-norm = { $norm } 各自縮放每個詞元的 { $d } 個特徵（沿 d，而不是沿 T 或 B）；γ{ $norm ->
    [LayerNorm] 和 β 各有
   *[other] 有
} { $d } 個元素，每個特徵一個。形狀保持 { $shape }。

why-norm-seq = 這個 Norm 沿 { $T } 個位置 (T) 取平均，而不是沿 { $d } 個特徵 (d)：形狀保持 { $shape }，所以形狀檢查看不出來，但每個詞元現在讀到了其他詞元，包括後面的詞元。

why-norm-batch = 這個 Norm 像 BatchNorm 一樣沿 { $B } 個批次元素 (B) 取平均，而不是沿每個詞元的 { $d } 個特徵 (d)：形狀保持 { $shape }，所以形狀檢查看不出來，但每個序列現在讀到了批次中的其他序列。

why-linear-q = x·Wq，Wq 為 ({ $rows },{ $cols })：{ $wide ->
    [yes] 每個詞元的 { $rows } 個特徵變成 { $cols } 個查詢特徵，是 h·hd 而不是 d_model { $rows }，因為設定給每個頭自己的寬度 (head_dim)；接著分成多個頭。輸出為 { $shape }。
   *[no] 每個詞元的 { $rows } 個特徵變成 { $cols } 個查詢特徵，之後再分成多個頭。形狀保持 { $shape }。
}

why-linear-kv = { $w } 為 ({ $rows },{ $cols })：{ $gqa ->
    [yes] 在分組查詢注意力下，k 和 v 比 d_model 窄：每個詞元的 { $rows } 個特徵變成 { $cols } 個 { $role } 特徵而不是 { $rows } 個，頭數比 q 少。輸出為 { $shape }。
   *[no] 每個詞元的 { $rows } 個特徵變成 { $cols } 個 { $role } 特徵，接著分成多個頭。形狀保持 { $shape }。
}

why-grad = dL/d{ $of } 的形狀就是 { $of } 自己的 { $shape }：損失是一個數，{ $of } 的每個值各自推動它一點。{ $n ->
    [0] 讀取它的步驟都不影響損失：梯度為 0。
    [one] 有一個步驟讀取它；這是那一步的反向傳播送回的。
   *[other] 有 { $n } 個步驟讀取它；各自反向傳播送回的份額加總。
}
why-loss-next-token = 損失是一個數：位置 t 的 logits { $path } { $shape } 為位置 t + 1 的詞元評分，所以最後一個位置沒有可評分的；交叉熵在 B·(T−1) = { $n } 個預測上平均。
why-loss-mean-square = 損失是一個數：沒有詞彙就沒有下一個詞元可評分，所以取 { $path }² 在其 { $n } 個值上的平均，這個替代品能到達每個參數。

why-linear-column = 這個裝置持有 { $w } 的幾欄：({ $rows },{ $cols })，一個列並行的切片。每個裝置持有自己那些注意力頭（或隱藏單元）的欄，所以每個詞元的 { $rows } 個特徵變成這個裝置的 { $cols } 個，{ $shape }，由完整的輸入算出，不需要通訊。

why-linear-partial = 這個裝置持有 { $w } 的幾列：({ $rows },{ $cols })，一個行並行的切片，只讀取這個裝置的 { $rows } 個特徵。x_k·W_k 是部分和，形狀與輸出完全相同，{ $shape }：形狀對了，數值卻要等各裝置的部分相加（接下來的全歸約或歸約分散）才對。

why-linear-kv-replicated = K/V 頭比裝置少：一個頭不能切到不同裝置上，所以這個裝置保留一整個 K/V 頭，也就是它的查詢頭所讀的那一個，({ $rows },{ $cols })；共用它的各裝置持有相同的副本（複製）。每個詞元的 { $rows } 個特徵變成那個頭的 { $cols } 個 { $role } 特徵，{ $shape }。

why-linear-out = 輸出投影 Wo ({ $rows },{ $cols }) 混合合併後各頭的 { $rows } 個特徵；{ $wide ->
    [yes] 它把 h·hd { $rows } 映射回 d_model { $cols }：形狀在這裡回到 (B,T,d)，所以輸出 { $shape } 可以加回殘差流。
   *[no] 它把 d_model 映射到 d_model，所以輸出 { $shape } 可以加回殘差流。
}

why-linear-up = W1 為 ({ $rows },{ $cols })：每個詞元從 d_model { $rows } 擴展到 d_ff { $cols } 個隱藏單元，得到 { $shape }。{ $bias ->
    [0] {""}
   *[other] b1 有 { $cols } 個元素，每個隱藏單元一個，不是 { $rows } 個。
}

why-linear-gate = 門控 Wg ({ $rows },{ $cols }) 與上投影一樣寬：每個詞元 d_ff { $cols }，得到 { $shape }；它的 silu 決定每個隱藏單元通過多少。

why-linear-down = W2 為 ({ $rows },{ $cols })，不是 ({ $cols },{ $rows })：{ $rows } 個隱藏單元回到 d_model { $cols }，所以前饋網絡的輸出 { $shape } 可以加回殘差流。

why-linear = x·W，W 為 ({ $rows },{ $cols })：最後一軸變成 W 的 { $cols } 列，得到 { $shape }。

why-split = { $wide ->
    [yes] h·hd { $d }
   *[no] d_model { $d }
} = { $heads } 個頭 × { $hd }：每個頭在自己 { $hd } 寬的切片中做注意力；頭移到 T 前面，(B,h,T,hd) = { $shape } 而不是 (B,T,h,hd)，這樣每個頭各有一張 { $T }×{ $T } 的得分表。

why-split-kv = k 和 v 有 { $heads } 個頭，每頭 { $hd }（{ $d } = { $heads } × { $hd }）：分組查詢注意力保留比查詢頭少的 K/V 頭，每個由一組查詢頭共用。頭移到 T 前面：{ $shape }。

why-rope = 旋轉位置編碼把每個頭的 { $pairs } 對特徵各轉一個隨詞元位置增大的角度：形狀 { $shape } 不變，且 hd { $hd } 必須是偶數。

why-repeat-kv = 分組查詢注意力：{ $kv } 個 K/V 頭各重複 { $rep } 次，得到 { $h } 個頭，每個查詢頭一個，於是 q 與它的 k 相遇，權重與它的 v 相乘，頭對頭：{ $shape }。

why-rope-partial = 部分旋轉：每個頭的 { $hd } 個特徵中只有前 { $dims } 個旋轉，{ $pairs } 對，角度隨詞元位置增大；其餘 { $rest } 個原樣通過。形狀 { $shape } 不變。

why-alibi = ALiBi：{ $heads } 個頭各把 m·(j − t) 加到查詢 t 對鍵 j 的得分上，詞元自身為 0，每往回一步更負，斜率 m 從 { $first } 到 { $last }：位置以距離懲罰的形式進入，沒有表也沒有旋轉。逐元素進行，所以得分保持形狀 { $shape }。

why-softcap = 軟上限 { $cap }·tanh(s/{ $cap })，在遮罩之前作用於每個得分：大的得分在 { $cap } 以下趨平，小的幾乎不變。逐元素進行，所以得分保持形狀 { $shape }。

why-softcap-logits = 軟上限 { $cap }·tanh(z/{ $cap })，作用於每個 logit：詞表中沒有得分超過 { $cap }。逐元素進行，所以 logits 保持形狀 { $shape }。

why-scale-embed = 每個詞元的向量乘以 √d_model = √{ $d } ≈ { $by }，使嵌入以模組預期的尺度進入殘差流：每個元素乘同一個數，所以形狀保持 { $shape }。

why-scores = { $h } 個頭各把自己的 { $Tq } 個查詢 (Tq) 與 { $Tk } 個鍵 (Tk) 逐一比較：每個頭一張 { $Tq }×{ $Tk } 的表，乘以 1/√{ $hd }。得分為 { $shape }，不是 { $wrong }：每個頭一張表，而不是每個詞元一個向量。

why-softmax-causal = 因果遮罩隱藏每個查詢之後的鍵（比查詢晚的鍵得到 −∞），然後 softmax 把每行 { $Tk } 個得分變成總和為 1 的權重。形狀保持 { $shape }。

why-softmax-window = 滑動窗口隱藏每個查詢之前最後 { $w } 個位置以外的每個鍵（較晚的鍵，或往回超過 { $w } 的鍵，得到 −∞），然後 softmax 把每行 { $Tk } 個得分變成至多 { $w } 個鍵上總和為 1 的權重。形狀保持 { $shape }：窗口改變的是哪些格子是 ╳，不是軸。

why-softmax-two-way = 編碼器的注意力按設計沒有遮罩：每個查詢讀取全部 { $Tk } 個鍵，前後皆有，softmax 把每行變成總和為 1 的權重。形狀保持 { $shape }；因果探針預期影響向兩個方向擴散。

why-softmax = 沒有遮罩：softmax 把每行 { $Tk } 個得分變成總和為 1 的權重，分佈在每個鍵上，包括後面的詞元。形狀保持 { $shape }，所以形狀檢查看不出洩漏；因果探針看得出來。

why-softmax-no-max = Softmax 沒有先減去每行的最大值：大得分的 exp 溢出成 ∞，而 ∞/∞ 是 NaN，所以一行的 { $Tk } 個權重總和不再是 1。減去最大值不改變任何權重（在比值中抵消），並讓每個 exp 至多為 1。形狀保持 { $shape }。

why-weighted-sum = 每個查詢取 { $Tk } 個值向量的加權和：({ $Tq }×{ $Tk })·({ $Tk }×{ $hd }) 每個頭得到 { $Tq }×{ $hd }；鍵軸 Tk 被求和消去，查詢位置又是 T：{ $shape }。

why-merge = { $h } 個 { $hd } 寬的頭並排合併回去：轉置為 (B,T,h,hd)，再重塑為 { $wide ->
    [split] h/{ $N }·hd = { $h } × { $hd } = { $d }：這些是這個裝置的 { $h } 個注意力頭（模型的 d_model 是 { $dm }，由 { $N } 個裝置分擔），所以合併後的注意力頭 { $shape } 在這裡離開 (B,T,d)；行並行的輸出投影讀取它們，之後各裝置相加才回到 (B,T,d)。
    [yes] h·hd = { $h } × { $hd } = { $d }，這不是 d_model { $dm }：設定給的 head_dim 不等於 d_model / h，所以合併後的頭 { $shape } 在這裡離開 (B,T,d)，由輸出投影帶回。
   *[no] d_model { $d } = { $h } × { $hd }。形狀 { $shape } 又是 (B,T,d)。
}

why-reshape = 把 (B,h,T,hd) 直接重塑為 { $shape }，沒有轉置：形狀正確，所以每個形狀檢查都通過，但每行 { $d } 個數現在混合了不同詞元的頭。因果探針看得出來。

why-act = { $act } 各自作用於每個詞元的 { $ff } 個隱藏單元：形狀 { $shape } 不變。

why-act-after-down = { $act } 放在下投影之後：它作用於 { $ff } 個殘差流特徵，而不是 W1 與 W2 之間的隱藏單元。每個形狀仍然吻合，{ $shape }，所以只有在相同權重上與宣告的前饋網絡 W2·act(W1·x) 比較（參考檢查）才找得到。

why-swiglu = silu(gate) ⊙ up：兩者都是 d_ff { $ff } 寬，逐元素相乘，所以形狀保持 { $shape }。

why-columns = { $from } 的 { $width } 中第 { $lo } 到 { $hi } 列：一個融合矩陣並排算出每個部分，所以這部分是其輸出的一個切片，{ $shape }，正是它自己的矩陣會給出的結果。一次矩陣乘法取代數次；數字相同。

why-columns-grouped = { $from } 的 { $width } 中，{ $groups } 組（每組 { $period }）各自的第 { $lo } 到 { $hi } 列：融合矩陣把每組的各部分並排存放，所以這部分逐組收集，{ $shape }，正是它自己的矩陣會給出的結果。

why-geglu = gelu_tanh(gate) ⊙ up：兩者都是 d_ff { $ff } 寬，逐元素相乘，所以形狀保持 { $shape }。

why-add = 殘差相加 { $stream } + { $update }：逐元素進行，所以兩者都必須是 (B,T,d) { $shape }。這就是每個子層都交回 d_model { $d } 的原因。

why-add-updates = 並行殘差：注意力和前饋網絡都經由各自的 Norm（或共用的一個）讀取模組的輸入，它們的更新 { $a } + { $b } 在這裡、在殘差流之前相加：兩者都是 (B,T,d)，所以和為 { $shape }。接著一次殘差相加把它加到 x 上：每個模組一次相加，兩個更新。

why-tokens = 詞元 id：{ $B } 個序列，每個 { $T } 個詞元，每個詞元一個整數 (int64)，{ $shape }。它們還不是向量，也不是 (B,T,d)：詞元嵌入把每個 id 變成一行 d_model 個數。

why-embedding = 每個 id 取 wte ({ $V },{ $d }) 中自己的一行：是查表，不是乘積，所以 { $B }×{ $T } 個 id 變成 { $B }×{ $T } 個 { $d } 維向量，{ $shape }。第 i 行是詞元 i 的向量；id ≥ { $V } 沒有對應的行。

why-embedding-part = 詞彙表按列切分：這個裝置持有 wte 的第 { $from }..{ $to } 列，每列 { $d } 維。id 落在這個範圍內的詞元取得它的那一列；其他詞元得到一列零，兩種情況都是 { $shape }。每個詞元的那一列恰好只有一個裝置持有，所以之後的全歸約（對各裝置求和）讓每個詞元都得到它的向量。

why-pad = 補零到 { $to }，{ $shape }，讓各裝置能平均切分：這些補上的列沒有任何詞元 id 會用到，它們的分數在 logits 離開之前就被丟掉。

why-vocab-unpad = 詞彙表補了 { $pad } 列零，讓各裝置能平均切分；沒有任何詞元 id 會用到它們，所以它們的分數在這裡被丟掉，logits 又回到模型的 V { $V }，{ $shape }。

why-lm-head-part = 這個裝置持有詞彙表中它的那些列，所以它只在每個位置為這 { $V } 個詞元評分，{ $shape }：每個詞元的分數只需要它自己那一列，所以不用求和，只要把各裝置的分數並排起來。

why-all-reduce-embedding = 查表的全歸約：{ $N } 個裝置各自在自己持有的 wte 列中查每個詞元，而每個詞元的那一列恰好只有一個裝置持有（其他裝置給出零），所以對各裝置求和就得到每個詞元的向量 { $shape }。在環狀演算法中每個裝置傳送其中的 2·(N−1)/N：{ $bytes }。

why-all-gather-vocab = logits 的全收集：{ $N } 個裝置各自為自己持有的詞彙列評分，把各裝置的分數並排起來就是每個詞元的分數 { $shape }。在環狀演算法中每個裝置傳送其中的 (N−1)/N：{ $bytes }。

why-positions = 位置 t 讀取 wpe ({ $ctx },{ $d }) 的第 t 行；只用到前 T = { $T } 行，所以 pos_emb 為 { $shape }：每個位置一個向量，每個序列相同，沒有 B 軸。

why-add-positions = x0 = tok_emb + pos_emb：{ $tok } + { $pos } 把位置廣播到 { $B } 個序列上，所以每個詞元的向量帶著它所在的位置。{ $shape } 就是每個模組讀取並交回的殘差流。

why-positions-offset = 位置 t 讀取 wpe ({ $ctx },{ $d }) 的第 t + { $offset } 行：前 { $offset } 行在位置 0 之前，所以用到第 { $offset } 到 { $end } 行，pos_emb 為 { $shape }：每個位置一個向量，每個序列相同，沒有 B 軸。

why-kv-cache-prefill = 提示詞的 { $new } 個鍵（或值）成為快取的開頭，{ $shape }：之後的每個解碼步都從這裡讀取，而不必再算一次。

why-kv-cache = 這一步之後的鍵/值快取：先前快取的 { $held } 個位置加上新的 { $new } 個，共 { $S } 個，{ $shape }。解碼步只為新的詞元計算 k 與 v，先前的全都從這裡讀取，所以它的查詢只有一列，而鍵是全部。

why-kv-cache-ring = 滑動視窗為 { $w }：快取是 { $w } 格的環形緩衝區，位置 p 寫入第 p mod { $w } 格；最後寫入的位置 { $pos } 寫入第 { $slot } 格，覆蓋位置 { $old }，此後沒有查詢能讀到它。快取存最後 { $w } 個位置，{ $shape }：長到視窗大小就不再增長。

why-rope-decode = 新詞元在它真正的位置 { $pos }（它之前的詞元數）旋轉，而不是在 0：這樣它的查詢與每個在被快取時已按自己位置旋轉的鍵相遇時，距離才是兩者真正相隔的距離。形狀 { $shape } 不變。

why-scores-decode = 解碼步的查詢只有一列，Tq = { $Tq }：只有新詞元在提問。它的鍵是快取所存的每個位置，Tk = { $Tk }，所以分數是 { $shape }：每個頭一列 { $Tk } 個內積，各除以 √{ $hd }。

why-softmax-decode = 新詞元是最新的位置，沒有任何鍵在它之後，而快取只存它可以讀的鍵：遮罩在這一列什麼也不遮，softmax 把 { $Tk } 個分數變成總和為 1 的權重。形狀維持 { $shape }。

why-softmax-top-left = 遮罩是 tril(ones(Tq, Tk))，對齊在左上角：查詢第 i 列讀鍵 0..=i。在 Tq = { $Tq }、Tk = { $Tk } 時，新詞元雖是最新位置，卻只讀鍵 0，忽略其餘快取；遮罩必須對齊右下角，查詢 i 位於 i + Tk − Tq。形狀 { $shape } 看不出這個錯誤。

why-positions-decode = 解碼步的唯一詞元位於位置 { $start }，所以它讀 wpe 的第 { $pos } 列，而不是第 0 列：pos_emb 是 { $shape }。

why-token-type = 追蹤中每個詞元的類型都是 { $id }（BERT 的第一段），所以每個詞元加上 wtt ({ $types },{ $d }) 的第 { $id } 行：每個詞元一個向量，{ $shape }，每個位置相同，告訴編碼器詞元屬於句對中的哪一句。

why-first-token = BERT 的池化層每個序列只讀一個詞元，即第一個 ([CLS])：x[:, 0] 從 { $T } 個位置中保留 { $B } 個向量，{ $shape }。T 軸消失了：池化後的向量代表整個序列，所以分類器讀它，它也永遠不回到 (B,T,d)。

why-pooler = 池化層投影的 tanh，每個序列一個向量，{ $shape }：這是編碼器的摘要，不是子層的更新，所以永遠不回到 (B,T,d)。

why-lm-head-tied = LM 頭在每個位置為詞表中的每個詞元打分：x·wteᵀ 把 d_model { $d } 映射到 V { $V }，得到 logits { $shape }。權重綁定：它重用轉置的 { $w }，不增加參數。logits 是模型的輸出，不是子層的：永遠不回到 (B,T,d)。

why-lm-head = LM 頭在每個位置為詞表中的每個詞元打分：x·W，{ $w } 為 (d_model { $d }, V { $V })，得到 logits { $shape }。它們是模型的輸出，不是子層的：永遠不回到 (B,T,d)。

why-linear-router = 路由器為每個詞元給每個專家打分：x·W_r，{ $w } 為 (d_model { $rows }, E { $cols })，每個專家一個 logit，{ $shape }。它和其他線性層一樣，只是窄：E 個專家，而不是 d_ff 個單元。

why-router-softmax = 對每個詞元各自在 { $E } 個專家上做 softmax：路由器的 logits 變成每個詞元總和為 1 的機率。沒有遮罩，形狀保持 { $shape }。

why-top-k = 每個詞元保留 { $E } 個專家中機率最高的 { $k } 個，最佳的在前：{ $shape } 存的是專家 id，不是特徵。詞元分到哪些專家取決於數據，在這裡決定。

why-route-weights = 每個詞元選中的 { $k } 個機率除以它們的和：用來混合其專家輸出的權重，每個詞元總和為 1，所以合併時加上的正好是一個詞元份量的更新。{ $shape }。

why-dispatch = 專家 { $e } 的批次：選了它的詞元的行，從 (B,T,d) 中收集成 { $shape }。{ $tokens } 個詞元中有 { $n } 個選了它；這個數目取決於數據，所以形狀離開 (B,T,d) 變成 (n_e,d)，沒有設定能事先說出 n_e{ $capacity ->
    [0] 。
   *[other] 。最多保留 { $capacity } 個：超過容量的詞元被丟棄，得不到這個專家的更新。
}

why-dispatch-bound = 專家 { $e } 的批次：選它的詞元的行，從 (B,T,d) 中收集。有多少詞元選它取決於數據，有了數值才知道：只追蹤形狀的執行記錄其上界 { $bound }（B·T，因為每個詞元至多選一個專家一次），所以形狀離開 (B,T,d) 變成 (n_e ≤ { $bound }, { $d })。

why-combine-bound = 每個專家的行回到各自的詞元，乘以該詞元給這個專家的權重，{ $E } 個專家的份量相加：{ $shape }，又是 (B,T,d)。只追蹤形狀的執行只知道每個專家行數的上界；有了數值，它們加起來是 B·T·k = { $slots }，即路由檢查的計數。

why-combine = 每個專家的行回到各自的詞元，乘以該詞元給這個專家的權重，{ $E } 個專家的份量相加：{ $shape }，又是 (B,T,d)。每個詞元選了 { $k } 個專家，所以應該回來 { $slots } 行；實際回來 { $routed } 行。

why-cast-up = { $what } 在 f32 中計算：它對許多數值求和（均值與方差，或一行的 exp）需要 f32 的 24 位有效位，而 { $from } 只有 { $bits } 位。形狀保持 { $shape }；只有數據類型離開殘差流的 { $from }。

why-cast-back = { $what } 之後轉回殘差流的數據類型 { $to }：下一個矩陣乘法需要同一種數據類型，殘差流保持 { $to }。形狀保持 { $shape }；數據類型回來了。

## 另一個程式記錄的步驟（匯出的 PyTorch 模組）

why-foreign-linear = 線性層：每個詞元的 { $rows } 個特徵變成 { $cols } 個，{ $from } → { $shape }；只有最後一軸改變。

why-foreign-matmul = { $op } 把 { $ins } 相乘：第一個的最後一軸與第二個的倒數第二軸相遇並被求和消去，得到 { $shape }。

why-foreign-reshape = { $op } 保留全部 { $n } 個數值的順序並重新分組各軸，{ $from } → { $shape }。對多頭 (B,h,T,hd) 不先轉置就重組成 (B,T,d) 會混合詞元；因果探針看得出來。

why-foreign-transpose = { $op } 重新排列各軸，{ $from } → { $shape }：數值不變，只是哪一軸是哪一軸。

why-foreign-softmax = softmax 把最後一軸每行 { $n } 個數值變成總和為 1 的權重；形狀保持 { $shape }。

why-foreign-other = { $op }：{ $ins } → { $shape }。shapetrace 不認得這個運算；它的形狀照日誌記錄。

## 失敗

why-fail-stream-dtype = { $path } 在殘差流上，所以必須是殘差流的 { $want } 的 { $shape }，但它是 { $got }：這一步以 { $got } 計算，卻從未轉回 { $want }。之後每一步都以 { $got } 執行，或拒絕混用兩者。

why-fail-residual-dtype = { $path } 把 { $stream } 的殘差流與 { $update } 的更新（{ $update_path }）相加：形狀吻合，數據類型不吻合；殘差流是 { $want }，所以更新必須先轉回 { $want }。

why-fail-matmul-dtype = { $path } 把 { $a }（{ $a_dtype }）乘以 { $b }（{ $b_dtype }）：矩陣乘法需要兩者同一種數據類型，就像 PyTorch 的 matmul。{ $a_dtype } 的運算元來自一個從未轉回的 f32 步驟。

why-fail-residual-hidden = 前饋網絡交回的是它的隱藏層 { $update }；殘差需要 { $want }：缺少下投影。

why-fail-residual-heads = 注意力交回的是未合併的頭，{ $update }；殘差需要 { $want }：必須先把頭合併回去（先轉置，再重塑）。

why-fail-residual = { $path } 把 { $stream } 與 { $update }（{ $update_path }）相加；殘差需要兩個 { $want } 的運算元。

why-fail-bias = { $bias_path } 有 { $bias } 個元素，但 x·W 給出 { $cols } 列：偏置每個輸出列一個元素，這裡是 { $cols } 個，不是 { $bias } 個。

why-fail-linear = x·W 需要 x 的最後一軸等於 W 的行數：{ $x } 有 { $x_last }，W { $w } 有 { $rows }。

why-fail-stream = { $path } 在殘差流上，所以必須是 { $want }，但它是 { $shape }。

why-fail-stream-linear = { $path } 在殘差流上，所以必須是 { $want }，但它的權重 { $w_path } 是 { $w }：它把每個詞元的 { $rows } 個特徵映射到 { $cols } 個，而不是回到 d_model { $d }。下投影必須是 ({ $rows },{ $d })。

why-fail-finite-softmax = { $path } 含有非有限值：softmax 對得分取 exp 前沒有先減去每行的最大值，exp 溢出成 ∞，∞/∞ 得到 NaN。減去最大值不改變任何權重，並讓每個 exp 至多為 1。

why-fail-finite = { $path } 含有非有限值（inf 或 NaN）：某個求和或指數溢出了。

why-fail-op = { $path } 的 { $op } 無法接受運算元 { $shapes }（{ $check }）。

why-add-skips-sublayer = 更新 { $update } 是子層的輸入，不是它的輸出：子層算出的東西從未到達殘差流。形狀吻合，{ $shape } + { $shape }，所以沒有形狀檢查攔得住；返回檢查 (returns) 看到那個從未回來的離開。

why-add-reads-x0 = 模組 { $block } 的這次相加從模型的輸入 x0 取殘差流，而不是從前一個模組：Block{ $block }(x) 而不是 Block{ $block }(Block{ $prev }(x))，跳過了模組 { $prev }。形狀吻合，{ $shape } + { $shape }，所以沒有形狀檢查攔得住：接線檢查（以及參考檢查）看得到。

why-add-no-out-proj = 更新 { $update } 是合併後的頭，沒有經過輸出投影就相加：它的 { $d } 個特徵是並排的頭，從未被 W_O (d×d) 混合。形狀吻合，{ $shape }，所以沒有形狀檢查攔得住：參數量看到缺少的 (d,d) 矩陣，參考檢查看到不同的輸出。

## 步進器畫面：標題列與分頁

ui-tab-steps = 步驟
ui-tab-checks = 檢查
ui-tab-ffn = 前饋網絡
ui-tab-norms = Norm
ui-tab-budget = 預算
ui-tab-probes = 探針
ui-tab-presenter = 簡報
ui-shapes-only = 只有形狀
ui-weights-from-file = 權重來自檔案
ui-fault-badge = ⚠ 故障 { $fault }
ui-experts = { $E } 個專家取前 { $k } 個

## 頁尾

ui-adds = 殘差相加 { $mark } { $passed }/{ $want }
ui-no-verdicts = – 沒有記錄判定
ui-fails-at = ✗ { $check } 於 { $path }
ui-counts = ◆ { $departures } 次離開 · ↩ { $returns } 次返回
ui-device = ⧉ 裝置 { $k }，共 tp={ $N }
ui-device-sp = ⧉ 裝置 { $k }，共 tp={ $N }+sp
ui-device-ep = ⧉ 裝置 { $k }，共 ep={ $N }
ui-stage = ⊟ 管線第 { $s } 階段，共 pp={ $M }（裝置 { $k }）
ui-counts-hidden = ◆ ↩ 測驗中隱藏計數
ui-counts-hidden-short = ◆ ↩ 隱藏
ui-footer-quiz = 測驗 { $right }/{ $asked }
ui-stale = ⧗ 已過時，重新追蹤中：
ui-tracing = 追蹤數值中 · 按鍵可用 · q 退出
ui-tracing-count = 追蹤數值中：{ $done }/{ $expected } 個事件 · 按鍵可用 · q 退出
ui-headline = { $failed ->
    [0] { $skipped ->
        [0] 全部 { $held } 項檢查成立
       *[other] { $held } 項檢查成立，{ $skipped } 項略過
    }
   *[other] { $skipped ->
        [0] { $total } 項檢查中 { $failed } 項失敗
       *[other] { $total } 項檢查中 { $failed } 項失敗，{ $skipped } 項略過
    }
}
ui-hint-step = 步驟
ui-hint-departure = 離開
ui-hint-add = 相加
ui-hint-switch = 切換
ui-hint-quiz = 測驗
ui-hint-present = 簡報
ui-hint-presenter = 簡報
ui-hint-help = 說明
ui-hint-quit = 退出
ui-hint-pause = 暫停
ui-hint-resume = 繼續
ui-hint-edit-x = 編輯 x
ui-hint-next-tab = 下一分頁
ui-hint-field = 欄位
ui-hint-change = 調整
ui-hint-type = 輸入
ui-hint-reset = 重設
ui-hint-token = 詞元
ui-hint-probe = 探針
ui-hint-fault = 故障

## 步驟列表

ui-col-step = 步驟
ui-col-path = 路徑
ui-col-shape = 形狀
ui-col-dtype = 數據類型
ui-col-marker = 標記
ui-stopped-above = ⋯ 前向傳播在上方停止：之後的步驟無法執行
ui-fails-here = ✗ { $check } 在此失敗
ui-stops-here = ✗ { $check } 在此停止
ui-blame-linear = x 的最後一軸 { $x } 應等於 W 的行數 { $rows }
ui-blame-bias = 偏置 { $bias } 應為 ({ $cols })
ui-mark-add-ok = ✓ 相加 { $ops }
ui-mark-add-bad = ✗ 相加 { $ops }
ui-mark-leaves = ◆ 離開 { $what }
ui-mark-returns = ↩ 返回

## 詳細窗格

ui-detail-title = 詳細
ui-detail-hidden = 形狀已隱藏：測驗先問它
ui-detail-add-ok = 殘差相加：兩者都是 (B,T,d)，{ $dtype }
ui-detail-at = 位於 { $line }
ui-detail-add-bad = 殘差相加：形狀不同，{ $dtype }
ui-from = 來自{" "}
ui-from-log-ids = 日誌追蹤時所用的 id
ui-from-given-ids = 給定的 id (--tokens)
ui-from-seeded-ids = 由種子從 0..{ $vocab } 均勻抽取的 id
ui-from-token-ids = 詞元 id
ui-from-given-input = 給定的輸入 x0 (--input)
ui-from-seeded-input = 由種子產生的輸入 x0 ~ N(0,1)
ui-from-stage = 前一個階段（第 { $s } 階段），經由管線
ui-why = 原因：
ui-why-more = {" "}… w：全部
ui-fail-at = ✗ { $check } 於 { $path } 失敗 ({ $op })
ui-operands = 運算元{" "}
ui-forward-stopped = 前向傳播在此停止：之後的步驟無法執行。
ui-fault-line = 故障 { $fault }：{ $what }

## 結構圖

ui-diagram-block = 模組 { $b }／共 { $layers } · { $form }
ui-diagram-input = 輸入，模組 1 之前 · { $form }
ui-diagram-embeddings = 嵌入，模組 1 之前 · { $path }
ui-diagram-recv = 接收的輸入，在區塊 { $b } 之前 · { $path }
ui-diagram-after = 模組 { $layers } 之後 · { $path }
ui-form-sandwich = 三明治 Norm
ui-form-mixed = 混合 Norm
ui-form-parallel = 並行
ui-form-shared-norm = 並行，1 個 Norm
ui-form-encoder = 編碼器
ui-diagram-reads-x0 = ✗ 讀取 x0，而不是模組 { $prev } 的輸出
ui-on-stream = 在 (B,T,d) 上
ui-now = 目前 { $path }
ui-failed-here = ✗ { $check } 在此失敗
ui-now-quiz = 目前：?（測驗）
ui-now-reveal = 目前：?（→ 顯示）

## 說明視窗：按鍵表每列一行

help-title = 按鍵 · ? 或 Esc 關閉
help-title-scroll = 按鍵 { $from }–{ $to }／共 { $total } · ↓↑ 捲動 · ? Esc 關閉
help-legend = ◆ 離開 (B,T,d) 或殘差流的數據類型   ↩ 返回   ✓/✗ 殘差相加
help-next = 下一步
help-prev = 上一步
help-down-up = 向下／向上（實驗：欄位或檢視）
help-first-last = 第一步／最後一步
help-page = 前進／後退十步
help-departure = 下一個／上一個離開 (B,T,d) 的步驟
help-residual = 下一個／上一個殘差相加
help-pass = 生成的下一個／上一個階段（預填、解碼步）
help-head = 熱圖中的上一個／下一個頭
help-scroll = 向左／向右捲動寬熱圖
help-why = 在詳細窗格顯示完整原因（隱藏熱圖）
help-act = 輪換激活函數（重新執行）
help-norm = 切換 LayerNorm／RMSNorm（重新執行）
help-placement = 切換 Pre-LN／Post-LN（重新執行）
help-fault = 輪換教學故障（重新執行）
help-device = 分散模型的下一個裝置（重新執行）
help-quiz = 測驗：預測每個新形狀
help-reveal = 揭示模式：每個下一形狀先隱藏，按 → 才顯示
help-charts = 預算：圖表／表格
help-present = 簡報模式（空白鍵暫停自動播放）
help-back = 切換後回到重播的日誌
help-tabs = 分頁：步驟 檢查 前饋網絡 Norm 預算 探針
help-edit = 實驗：編輯輸入向量
help-mistake = 前饋網絡：輪換錯誤／簡單或門控 (SwiGLU)
help-typing = 輸入時：作答或套用 / 略過或放棄；字母都是文字
help-click = 選取步驟
help-help = 本說明
help-quit = 退出

## 檢查分頁

ui-checks-title = 檢查：形狀契約與探針
ui-checks-fault = 故障 { $fault }：{ $what } — 由 { $by } 抓到
ui-and = 、
ui-verdict-pass = 通過
ui-verdict-fail = 失敗
ui-verdict-skip = 略過

## 教學故障

fault-ffn-no-down = 前饋網絡交回它的隱藏層：沒有下投影
fault-attn-no-merge = 注意力的頭從未合併回去
fault-bias-w1-64 = b1 的大小是 d_model 而不是 d_ff
fault-merge-no-transpose = 頭以直接重塑合併，沒有轉置
fault-no-causal-mask = 遺漏了因果遮罩
fault-skip-block1 = Block2(x) 而不是 Block2(Block1(x))
fault-norm-over-seq = Norm 沿序列取平均，而不是沿特徵
fault-no-out-proj = 注意力沒有輸出投影：合併後的頭就是它的輸出
fault-act-after-down = 激活函數放在下投影之後，而不是在上投影與下投影之間
fault-ln-after-add = 在宣告為 Pre-LN 的模型中，Norm 放在殘差相加之後
fault-mlp-returns-input = 前饋網絡算出隱藏層，卻交回它的輸入
fault-norm-over-batch = Norm 像 BatchNorm 一樣沿批次取平均，而不是沿特徵
fault-softmax-no-max = softmax 略過減去每行最大值，且得分很大（q/k 權重取自 N(0,1)）
fault-down-to-ff = 下投影 W2 是 (d_ff, d_ff)：前饋網絡的輸出保持 d_ff 寬
fault-norm-no-cast-back = Norm 升為 f32 並交回 f32，從未轉回殘差流的數據類型
fault-softmax-no-cast-back = softmax 在 f32 中計算且權重從未轉回，所以 weights·v 把 f32 與模型的數據類型混用
fault-moe-capacity = 每個專家至多接收 ⌈B·T·k/E⌉ 個詞元：之後的被丟棄
fault-no-sliding-window = 遺漏了宣告的滑動視窗：每個查詢都讀取所有較早的鍵
fault-window-off-by-one = 滑動視窗比宣告的少讀一個位置，把 <= 寫成了 <
fault-decode-no-append = 解碼步從未把新的鍵與值寫入快取：該詞元只注意過去
fault-decode-rope-at-zero = 解碼步把新詞元當作位於位置 0 來旋轉，而不是在快取的長度
fault-decode-mask-top-left = 因果遮罩是 tril(ones(Tq, Tk))，對齊在左上角：解碼步唯一的查詢只讀鍵 0
fault-grad-tied-once = 反向傳播只給共用的 wte 嵌入那一份梯度：語言模型頭那一份 dzᵀ·x 不見了
fault-softmax-grad-no-sub = softmax 的反向傳播忘了減去每列的加權和：ds = w ⊙ dw，而不是 w ⊙ (dw − Σⱼ w·dw)
fault-tp-no-allreduce = 行並行層的部分和沒有經過全歸約就被使用：每個裝置只把自己那些注意力頭（或隱藏單元）的份量加到殘差流上
fault-sp-scatter-no-sum = 歸約分散只切下每個裝置自己的部分和，沒有把各裝置的相加：每段位置都少了其他裝置的份量
fault-pp-recv-no-wait = 管線的某個階段在接收完成之前就讀取接收緩衝區（irecv 之後沒有 wait）：之後的區塊都在零上執行
fault-ep-return-order = 專家並行的回送把各裝置的部分按相反的裝置順序堆疊，於是每一段行都被當成另一個專家的輸出
fault-vocab-no-mask = 詞彙並行的查表把其他裝置持有的 id 遮成第 0 列，卻沒有把它們的向量歸零：每個詞元得到自己的那一列，再加上其他裝置的第 0 列
fault-why-ffn-no-down = 殘差相加遇到隱藏層：(B,T,d) + (B,T,d_ff)，在課程模型上是 (2,4,64) + (2,4,256)
fault-why-attn-no-merge = 殘差相加遇到分開的頭：(B,T,d) + (B,h,T,hd)，在課程模型上是 (2,4,64) + (2,4,4,16)
fault-why-bias-w1-64 = x·W1 是 (B,T,d_ff) 而 b1 是 (d)：偏置相加拒絕這些形狀
fault-why-merge-no-transpose = 每個形狀都通過；直接重塑 (B,h,T,hd) 把好幾個詞元塞進同一列，所以較後的詞元會移動較前的輸出
fault-why-no-causal-mask = 每個形狀都通過；每個位置都讀取後面的位置，所以較後的詞元會移動較前的輸出
fault-why-skip-block1 = 區塊 2 讀取 x0，而不是區塊 1 的輸出：區塊 1 的輸出沒有到達任何後續步驟
fault-why-norm-over-seq = Norm 的平均與變異數沿 T 計算：一個詞元會移動其他每個詞元的輸出，較前的也會
fault-why-no-out-proj = 每個形狀都通過；每個區塊比其宣告架構的公式少了 d² + d 個參數
fault-why-act-after-down = 每個形狀、計數與探針都通過；在相同權重下，區塊 1 的輸出與宣告架構的不同
fault-why-ln-after-add = 殘差相加加在 Norm 的輸出上，x = LN(x + f(x))，而不是加在殘差流上
fault-why-mlp-returns-input = 前饋網絡的隱藏層離開 (B,T,d) 後從未返回：加上去的更新是前饋網絡的輸入
fault-why-norm-over-batch = Norm 的統計量沿 B 計算：批次元素 1 會移動批次元素 0 的輸出
fault-why-softmax-no-max = 在數百的分數上，e^s 超過 88.7 就讓 f32 溢位，權重因而含有 inf 與 NaN（用 --weights 時 q 與 k 來自檢查點，分數維持很小：沒有可抓的）
fault-why-down-to-ff = 前饋網絡的輸出維持 d_ff 寬：(B,T,d_ff)，而殘差流是 (B,T,d)，即 (2,4,256) 對 (2,4,64)
fault-why-norm-no-cast-back = Norm 的輸出是 f32，而殘差流是 bf16
fault-why-softmax-no-cast-back = weights·v 以 f32 乘 bf16，矩陣乘積拒絕這樣做（PyTorch 的 matmul 也是）
fault-why-moe-capacity = 每個專家最多只有 ⌈B·T·k/E⌉ 條路由回來（lesson-moe 上是 16 條中的 14 條），而一個詞元能否保住它的專家取決於它之前的詞元，跨批次也是
fault-why-no-sliding-window = 每個形狀都通過；一個詞元會移動它之後超過 w − 1 個位置的查詢，而宣告的視窗對那些查詢隱藏了它
fault-why-window-off-by-one = 每個形狀都通過；在一個詞元之後 w − 1 個位置的查詢，宣告的視窗讓它讀取該詞元，但該詞元改變時它卻沒有改變
fault-why-decode-no-append = 每個形狀都通過，只是快取不再增長；新詞元的輸出（有詞彙表時即其 logits）與完整前向傳播在該位置的不同
fault-why-decode-rope-at-zero = 每個形狀都通過；新詞元與每個快取的鍵以錯誤的距離相遇，所以它的輸出與完整前向傳播的不同
fault-why-decode-mask-top-left = 在 Tq = Tk 時遮罩與因果遮罩相同，所以預填通過；解碼步的輸出與完整前向傳播的不同
fault-why-grad-tied-once = 每個梯度都保持形狀，wte 的是 (V,d)；只有損失的有限差分看得出 wte 的值也推動了 logits
fault-why-softmax-grad-no-sub = 每個梯度都保持形狀；分數的梯度沿每列的和不再是 0，損失的有限差分與它不符
fault-why-tp-no-allreduce = 部分和與完整總和的形狀完全相同，都是 (B,T,d)，所以每個形狀檢查都通過；只有把各裝置的結果與單一裝置模型的結果並排，才看得出來
fault-why-sp-scatter-no-sum = 切下的部分和與歸約分散的形狀完全相同，都是 (B,T/N,d)，所以每個形狀檢查都通過；只有把各裝置的結果與單一裝置模型的結果並排，才看得出來
fault-why-pp-recv-no-wait = 緩衝區是以殘差流的形狀 (B,T,d) 配置的，不論前一個階段的輸出是否已經送達，它都有這個形狀：每個形狀檢查都會通過；只有把各裝置的結果與單一裝置模型的結果比較才看得出來
fault-why-ep-return-order = 回送帶回的行數正好等於這個裝置詞元的路由數 (b·T·k, d)，不論順序如何，路由檢查也數到全部回來：每個形狀檢查都會通過；只有把各裝置的結果與單一裝置模型的結果比較才看得出來（只要某個裝置的行從兩個以上的裝置送回）
fault-why-vocab-no-mask = 不論裝置持有哪些列，它那一份查表結果都是 (B,T,d)，加總也是：每個形狀檢查都會通過；只有把各裝置的結果與單一裝置模型的結果比較才看得出來

## shapetrace faults：欄位

faults-col-fault = 故障
faults-col-mistake = 錯誤
faults-col-caught-by = 由誰抓到
faults-col-args = 參數
faults-at = 位於

## 預算分頁

ui-budget-title = 預算：參數量、FLOPs、位元組 · c：圖表
ui-budget-tab = 預算
ui-budget-this-model = 本模型
ui-budget-col-this = 本模型
ui-budget-col-gpt2 = GPT-2 small
ui-budget-keys = ↑↓ 欄位  ←→ 調整
ui-budget-type = e 輸入數值
ui-budget-reset = g 重設
ui-budget-bytes = 位元組以 { $dtype } 計；GPT-2 small 取 T = { $T }
ui-budget-foreign = { $producer } 的日誌：它只記錄步驟的形狀，沒有模型的權重，所以沒有可計算的。
ui-budget-none = 這個模型的預算無法計算。
budget-attention-weights = 注意力權重 / 模組
budget-ffn-weights = 前饋網絡權重 / 模組
budget-ratio = 前饋網絡 : 注意力
budget-block = 模組，含偏置與 Norm
budget-total = 總參數量
budget-non-embedding = 不含嵌入
budget-flops-block = FLOPs/詞元/模組 矩陣乘法
budget-flops-attention = + T 下的注意力
budget-ffn-share = 前饋網絡佔 FLOPs
budget-forward = 前向 FLOPs / 詞元
budget-training = 訓練 6N+12LHQT
budget-weights = 權重
budget-activations = 激活值
budget-kv-token = KV 快取 / 詞元
budget-kv-context = 上下文長度的 KV 快取
budget-grads = 梯度（每個權重一個）
budget-adam = Adam 狀態 8·N
budget-saved = 為反向傳播保存
budget-train-step = 訓練一步合計

## 測驗

ui-quiz-title = 測驗
ui-quiz-step = 步驟 { $step }：{ $path } = { $op }
ui-quiz-of = 輸入 { $from }
ui-quiz-which = 哪一個 ›{" "}
ui-quiz-predict = 預測它的形狀（大小、軸名或兩者）›{" "}
ui-quiz-keys = Enter 作答 · Esc 略過 · 得分 { $right }/{ $asked }
ui-quiz-verdict-title = 測驗 { $right }/{ $asked } · → 繼續 · z 結束

## 簡報模式

ui-present-predict = 預測形狀
ui-present-quiz-first = 測驗先問這個形狀。
ui-present-reveal = 會得到什麼形狀？按 → 揭示。
ui-present-stops = ✗ { $check } 停止了前向傳播
ui-present-paused = 自動播放已暫停（空白鍵繼續）
ui-present-autoplay = 自動播放中（空白鍵暫停）
ui-present-step = 步驟 { $step } · 共 { $total } 步
ui-present-after = 步驟 { $step } 之後 · 共 { $total } 步
ui-present-why = 原因

## 步進器其餘的文字：預算圖表、熱圖、重播與測驗的追問

chart-part-embed = 嵌入
chart-part-attn = 注意力
chart-part-MLP = 前饋網絡
chart-part-norms = Norm
chart-part-other = 其他
chart-part-qkvo = qkvo
chart-part-T-term = T 項
chart-part-head = 輸出頭
chart-total = 總計 { $n }
chart-params-title = 參數量 · c：表格
chart-flops-title = FLOPs/詞元，T={ $T }
chart-cross-encoder = T*={ $x }（雙向：沒有因果的一半）
chart-cross-d-ff = T*={ $x }=d_ff；因果 ≈{ $causal }
chart-cross = T*={ $x }；因果 ≈{ $causal }
chart-cross-none = 沒有 T 項或沒有前饋網絡
chart-legend-attn = ⠿ 注意力 T 項
chart-legend-mlp = ▄ 前饋網絡矩陣乘法
chart-legend-total = • 總計
chart-curves-title = 每詞元 FLOPs：• 總計 ⠿ 注意力 ▄ 前饋網絡 { $cross }

heat-query = 查詢
heat-key = 鍵
heat-head-keys = {"["} ] 頭
heat-masked = ╳ 遮罩
heat-scroll = 欄 { $first }–{ $last }／{ $cols }

formula-split-heads = 分成 { $heads } 個頭
formula-top-k = { $experts } 個專家中取前 { $k } 個
formula-softmax-experts = 對專家取 softmax
formula-transpose-merge = 轉置，合併頭
formula-reshape-no-transpose = 未轉置就 reshape
formula-no-max = 未減去最大值
formula-rotate = 按位置旋轉
formula-every-token = 用於每個詞元
formula-onto-tokens = 回到詞元
formula-repeat-kv = 重複 kv
formula-two-way = 雙向
formula-tied = (共用)
formula-over = 沿

ui-status-replaying = 重播 { $file }
ui-status-replaying-incomplete = 重播 { $file } · 日誌不完整：{ $events } 個事件，沒有摘要
ui-status-shapes-only = 只追蹤形狀：數值執行約需 { $estimate }，超過 --max-memory { $limit }

quiz-mistake-before-transpose = { $shape } 是轉置之前的排列：頭必須移到 T 的前面，{ $h } 個頭才各有自己的 { $t }×{ $t } 得分表
quiz-mistake-transposed = { $shape } 是轉置過的表：第 i 列是查詢 i 對每個鍵的{ $what ->
    [weights] 權重
   *[scores] 得分
}，所以查詢在前：(B,h,Tq,Tk)
quiz-mistake-stream = { $shape } 是殘差流的形狀；得分把每個查詢與每個鍵比較：(B,h,Tq,Tk)，每個頭一張 { $t }×{ $t } 的表
quiz-mistake-one-table = { $shape } 是每個序列一張表；{ $h } 個頭各自有一張：(B,h,Tq,Tk)
quiz-mistake-keeps-d = { $shape } 保持 d_model；W1 是 (d, d_ff) = ({ $d },{ $f })，所以隱藏層有 d_ff = { $f } 個特徵（b1 有 { $f } 個元素，不是 { $d }）
quiz-mistake-hidden = { $shape } 是隱藏層；W2 ({ $f },{ $d }) 把它帶回 d_model = { $d }，殘差相加 x + FFN(x) 才對得上
quiz-mistake-before-merge = { $shape } 是合併之前的上下文：T 移回頭的前面，{ $h } 個寬 { $hd } 的頭合併成 d = { $d }
quiz-mistake-halfway = { $shape } 只做了一半：轉置之後頭還要合併，{ $h } × { $hd } = { $d }
quiz-mistake-before-split = { $shape } 是切分之前的投影；切分把最後一軸切成 hd = { $hd } 的頭，並把頭移到 T 的前面
quiz-follow-up-which = 你的大小符合不只一種順序：{ $n } 個 { $size } 之中哪一個是 { $axis }？輸入它的位置（{ $positions }），或為軸命名 { $template }
quiz-follow-up-name = 你的大小符合不只一種順序：請為軸命名，把 { $template } 的每個 ? 換成軸名

ui-quiz-wrong-is = ✗ { $says }；{ $is }

## 狀態列

ui-status-charts-on = 預算分頁將顯示圖表：按 Tab 到預算
ui-status-charts-off = 預算分頁將顯示表格
ui-status-reveal-on = 揭示模式：每個下一形狀先隱藏，按 → 才顯示 · o 結束
ui-status-reveal-off = 揭示模式已關閉
ui-status-quiz-on = 測驗開始：每個新形狀顯示前先預測
ui-status-quiz-off = 測驗結束：答對 { $right } 題，共作答 { $asked } 題
ui-status-quiz-first = 測驗進行中：先按 z 結束
ui-status-reveal-first = 揭示模式進行中：先按 o 結束
ui-status-count-quiz-first = 計數測驗進行中：先按 z 結束
ui-status-count-quiz-on = 預算測驗開始：每個計數顯示前先預測
ui-status-count-quiz-off = 預算測驗結束：答對 { $right } 題，共作答 { $asked } 題
ui-status-autoplay-end = 自動播放已到最後一步（空白鍵重播）
ui-quiz-right = ✓ 答對：{ $path } 是 { $shape }
ui-quiz-skipped = 已略過：{ $path } 是 { $shape }
ui-quiz-is = { $path } 是 { $shape }
ui-quiz-also = 另外顯示了 { $n } 個保持 { $shape } 的步驟

## 實驗分頁的框架（計算內容是課程本身的英文）

ui-probes-foreign = { $producer } 的日誌：探針在匯出該模組時已執行；其判定：
ui-probes-rule-causality = 整個模型；較早的位置與其他批次元素都不得改變
ui-probes-rule-positionwise = 每個 Norm 與前饋網絡各自；只有移動的詞元可以改變
ui-probes-each-token = 逐一每個詞元
ui-probes-token = 詞元 t={ $t }
ui-probes-title = 探針：{ $name } · 移動批次 0 的{ $token } · ←→ 詞元 · ↑↓ 探針
ui-probes-computing = 計算中… 模型以移動後的{ $token }重新執行；按鍵可用
ui-probes-cannot = 無法探測這個模型：{ $error }
ui-probes-tensor = 張量
ui-probes-batch = 批次 { $b }
ui-probes-fails = ✗ { $name } 失敗：標 ✗ 的行不該改變卻改變了，○ 該改變卻沒有
ui-probes-holds = ✓ { $name } 對詞元 { $t } 成立
ui-norms-hint = e 編輯 x（例如 3,4 或 1,2,3,4）· LayerNorm 先置中再縮放；RMSNorm 只縮放
ui-norms-title = LayerNorm 對比 RMSNorm

## 終端機太小

ui-small-title = 終端機太小
ui-small-needs = shapetrace 至少需要 { $w }×{ $h }；
ui-small-this = 目前是 { $w }×{ $h }。
ui-small-enlarge = 請放大視窗或縮小字型。
ui-small-quit = q 退出
ui-ffn-off = ReLU 關閉了隱藏單元 { $units }：只有激活單元對應的 W2 列 (row) 會加到 y。
ui-ffn-keys = → 下一個乘積 · ← 上一個 · G 全部 · e x · x 錯誤 · s 門控
ui-ffn-mistake-on = ✗ 錯誤開啟：{ $name }（{ $what }）· G 顯示其影響 · x 下一個
ui-ffn-head-keys = （e 編輯 x · x 錯誤 · s 門控）
ui-ffn-mistake-head = ✗ 錯誤開啟：{ $name }（x 切換到下一個）
ui-ffn-title = 手算前饋網絡：{ $what } · 步驟 { $step }／共 { $steps }
ui-edit-title = 編輯
ui-edit-ffn = 前饋網絡：x（例如 2,-1），或 d=4 f=8 seed=1 w1=1,1;0,-1 w2=1;1
ui-edit-norms = Norm 的 x（一個或多個數，例如 3,4）
ui-edit-budget = 預算的 { $field }（例如 171）
ui-edit-keys = 目前 { $now } · Enter 套用 · Esc 取消 · Ctrl-U 清除
ui-switch-activation = 激活函數
ui-switch-norm = Norm
ui-switch-placement = Norm 位置
ui-switch-fault = 故障
ui-switch-model-file = 模型檔案
ui-switch-device = 裝置
ui-switch-values = 數值
ui-status-foreign-switch = { $producer } 的日誌：它的模型不是 shapetrace 的，所以切換無法重新追蹤
ui-status-tracing = { $what }：追蹤中…
ui-status-file-bad = 模型檔案：{ $error } · 保留上一次正確的追蹤
ui-status-values-from = 數值來自 { $label }
ui-status-stops = { $what } → { $value }：✗ { $check } 在 { $path } 停止了前向傳播
ui-status-retraced = { $what } → { $value }：已重新追蹤
ui-status-live = { $said }，以 { $file } 的模型即時執行 · v 回到重播
ui-status-cannot = 無法切換{ $what }：{ $error }
ui-status-no-replay = 沒有可回去的重播：v 只回到以 view 開啟的日誌
ui-status-replaying-again = 再次重播 { $file }

## 檢查的細節（其餘暫時只有英文）

check-nothing = 沒有可判定的
check-nothing-stopped = 沒有可判定的：前向傳播在 { $path } 停止
check-stopped = 前向傳播在 { $path } 停止；由使它停止的檢查判定
check-probe-stopped = 前向傳播在 { $path } 停止
check-op-shapes-pass = 全部 { $ops } 個運算都接受了它們的運算元
check-residual-pass = { $n }/{ $n } 次殘差相加都是 { $shape } + { $shape }，{ $dtype }{ $parallel ->
    [0] {""}
   *[other] （並行：每個模組 1 次，{ $parallel } 個更新相加）
}
check-stream-pass = { $n } 個殘差流張量都是 { $shape } { $dtype }
check-wiring-pass = { $blocks ->
    [1] block1 讀取輸入
    [2] block1 讀取輸入，block2 讀取 block1 的輸出
   *[other] block1 讀取輸入，block2 到 block{ $blocks } 各讀取前一個模組的輸出
}
check-wiring-pass-stage = block{ $first } 讀取前一個階段送來的輸出（recv），其後到 block{ $blocks } 的每個模組各讀取前一個模組的輸出
check-finite-pass = { $n } 個張量的所有數值都是有限的
check-params-pass = 建出的 { $total } 個參數逐部分符合封閉式（{ $parts } 個部分）
check-positionwise-pass = { $blocks } 個模組的每個 Norm 與前饋網絡都只改變了被改變的詞元（試了 { $tried } 個詞元）

## 預算分頁的計數測驗（題目是課程的英文）

ui-budget-quiz-count = 你的計數 ›{" "}
ui-budget-quiz-next = → 下一題 · z 結束測驗
ui-budget-quiz-done = 測驗完成：答對 { $right } 題，共作答 { $asked } 題 · z 結束測驗
ui-budget-quiz-keys = Enter 作答 · Esc 略過
ui-budget-quiz-on = → 繼續 · z 結束
ui-budget-quiz-title = 預算測驗 { $right }/{ $asked } · { $keys }

## 另一個程式的日誌的標題列

ui-foreign-model = B={ $B } T={ $T } d_model={ $d }  模組={ $blocks }  宣告 { $placement }-LN  { $dtype }  來自 { $producer }
check-returns-none = 沒有可判定的：沒有完成的子層{ $open ->
    [0] {""}
   *[other] ；另有 { $open } 次離開屬於停在 { $path } 的子層
}
check-returns-stayed = 沒有完成的子層離開殘差流的形狀{ $open ->
    [0] {""}
   *[other] ；另有 { $open } 次離開屬於停在 { $path } 的子層
}
check-returns-pass = 全部 { $n } 次離開都在殘差相加之前返回 { $shape }{ $open ->
    [0] {""}
   *[other] ；另有 { $open } 次離開屬於停在 { $path } 的子層
}
check-causality-pass = { $spread ->
    [two-way] 雙向注意力：改變一個詞元會影響其序列的每個位置，但不影響其他批次元素
   *[causal] 改變一個詞元不會改變任何較早的位置，也不會改變其他批次元素
}{ $mask ->
    [none] {""}
    [window] ，且 { $path } 正好在大小 { $w } 的滑動窗口讀取它之處改變
    [two-way] ，且 { $path } 正好在雙向注意力讀取它之處改變
   *[causal] ，且 { $path } 正好在因果遮罩讀取它之處改變
}（試了 { $tried } 個詞元）
check-reference-plain-pass = 每個模組的輸出（比較了 { $n } 個）都與一個樸素的 f64 前向傳播相符：最大 |Δ| { $delta }（{ $dtype } 容許 { $tol }·(1 + 該輸出的最大 |x|)）
check-decode-pass = { $n } 個解碼步中的每一步，經由鍵/值快取，在其位置上都給出與不用快取、一次跑完整個序列的前向傳播相同的 { $what }，預填也是：最大 |Δ| { $delta }（{ $dtype } 容許 { $tol }·(1 + 最大 |x|)）；上面的契約檢查評判預填以及每個在 (B,1,d) 的解碼步
check-reference-pass = 每個模組的輸出（比較了 { $n } 個）都等於宣告的架構{ $fault ->
    [none] {""}
   *[other] （不含 { $fault }）
}在相同權重與輸入下的輸出

## 檢查的失敗與略過

judge-op-refused = { $at }{ $op } 拒絕了它的運算元：{ $error }
judge-device-left = { $at }{ $op }：裝置 { $device } 在交出自己的部分之前就停止了（見它自己的追蹤），所以這個裝置無法繼續
judge-op-dtype = { $at }{ $op } 拒絕了它的運算元：{ $a } 與 { $b }：矩陣乘法需要單一數據類型；請轉換其中一個
judge-stream-shape = { $at }殘差流張量 { $path } 是 { $got }，不是 { $want }
judge-stream-dtype = { $at }殘差流張量 { $path } 是 { $got } { $dtype }，不是殘差流的 { $want }
judge-finite = { $at }{ $path } 含有非有限值（NaN 或 ±inf）
judge-residual-dtype = { $at }殘差相加 { $stream } { $stream_dtype } + { $update } { $update_dtype }：兩個運算元都必須是 { $want }
judge-residual-shape = { $at }殘差相加 { $operands }：兩個運算元都必須是 { $want }
check-residual-count = { $n } 次殘差相加，應為 { $want } 次（每個模組 { $per } 次）{ $block ->
    [none] {""}
   *[other] ；{ $block } 做了 { $adds } 次
}
check-returns-fail = { $path }：{ $left } 離開了 { $shape } { $dtype }，成為 { $as } { $as_dtype }，且再也沒有返回
check-wiring-fail = { $who } 在 { $path } 讀取 { $reads }，應讀取前一個輸出 { $want ->
    [nothing] （無）
   *[other] { $want }
}
check-wiring-normed = { $path } 加在 { $stream }{ $line ->
    [none] {""}
   *[other] {" "}（位於 { $line }）
}（一個 Norm 的輸出）上：Pre-LN 的殘差流承載的是和 x + f(LN(x)) 本身，而不是 LN 之後的和
check-wiring-unnormed = { $path } 加在 { $stream }{ $line ->
    [none] {""}
   *[other] {" "}（位於 { $line }）
}上，而這個和沒有經過任何 Norm：Post-LN 區塊會把每個和送進 LN，x = LN(x + f(x))，再加在 LN 之後的和上
check-fault-unjudged = --fault { $fault }：能抓到它的每一項檢查（{ $checks }）在這次執行中都被略過了（{ $why }），這個故障會在沒被判定的情況下通過；允許：一次會判定它們的執行：--numeric（需要更多記憶體時加大 --max-memory），或更小的模型（--seq、--layers、--d-model）
check-shape-only = 只追蹤形狀的執行：沒有數值
check-shape-only-compare = 只追蹤形狀的執行：沒有可比較的數值
check-probe-no-tensor = 沒有可判定的：沒有可比較的張量
check-positionwise-fail = { $path }：改變批次 0 的詞元 { $token }，改變了批次 { $batch } 的詞元 { $pos }（|Δ| 最大 { $delta }）
check-mask-name = { $mask ->
    [window] 寬度 { $w } 的滑動視窗
    [two-way] 雙向注意力
   *[causal] 因果遮罩
}
check-causality-fail = { $path }：改變批次 0 的詞元 { $token }，{ $what ->
    [missing] 查詢 { $pos } 卻沒有改變，儘管宣告的{ $mask ->
        [window] 寬度 { $mw } 的滑動視窗
        [two-way] 雙向注意力
       *[causal] 因果遮罩
    }允許它讀取詞元 { $token }
    [batch] 改變了批次元素 { $batch }
    [window] 改變了位置 { $pos }，超出寬度 { $w } 的滑動視窗（只有第 { $token }..={ $last } 列可以改變）
   *[earlier] 改變了較早的位置 { $pos }
}（|Δ| 最大 { $delta }）
check-params-fail = { $path }：建出 { $got } 個參數，比封閉式 { $formula } = { $want } { $than ->
    [fewer] 少
   *[more] 多
}了 { $by } 個
check-params-extra = { $path }：建出了宣告的架構沒有的 { $got } 個參數
check-reference-plain-fail = { $path }：在相同的權重與輸入上，與樸素的 f64 前向傳播相差 |Δ| 最大 { $delta }，超過 { $dtype } 在此容許的 { $allowed }
check-decode-fail = { $path }：在位置 { $pos }，不用快取的完整前向傳播給出不同的 { $what }，|Δ| 最大 { $delta }，超過容許的 { $allowed }：快取路徑算的是別的東西
check-shard-pass = 每個裝置的殘差相加、Norm、嵌入與輸出（{ $devices } 個裝置上共 { $n } 個張量，各自持有的部分只比對那一段）都與單一裝置模型在相同權重與輸入下的結果相等：最大的 |Δ| 是張量尺度的 { $delta }（允許 { $tol }）{ $half ->
    [none] {""}
   *[other] ；{ $half } 模型在 f32 中評判，缺少的裝置份量無法藏在捨入裡
}
check-shard-fail = 裝置 { $device } 上的 { $path } 與單一裝置模型的結果相差張量尺度的 { $delta }（允許 { $tol }）；在它之前比對的每個張量都相符（最後一個：{ $before }），所以各裝置與單一裝置模型在那一步與這一步之間分道揚鑣{ $half ->
    [none] {""}
   *[other] （{ $half } 模型，在 f32 中評判）
}
check-shard-none = 未評判：各裝置的執行中沒有張量與單一裝置模型的張量對應
check-grads-pass = 每個梯度（{ $n } 個）都有其張量的形狀，每個參數都有梯度；{ $tensors } 個梯度的 { $coords } 個座標與損失在 f64 的中央有限差分一致：最大的 |Δ| 用掉容許值的 { $share }（兩者較大者與該張量最大梯度的 { $tol }，再加上差分自身捨入的 { $rounding }·ε·(1 + |L|)/h）
check-grads-shapes = 每個梯度（{ $n } 個）都有其張量的形狀，每個參數都有梯度；未比較數值：{ $reason }
check-grads-fail = { $path }{ $at }：反向傳播給出 { $backward }，損失的中央有限差分給出 { $fd }（|Δ| { $delta }，容許 { $allowed }）；它之前的每個梯度都一致，所以讀取它的那一步的反向傳播壞了：{ $from }
check-grads-shape = { $path } 是 { $shape }，但 { $of } 是 { $expected }：梯度的形狀與它微分的對象相同
check-grads-missing = { $param } { $shape } 沒有梯度：反向傳播從未到達它
check-grads-log-values = 有限差分需要模型的權重，而紀錄檔沒有
check-grads-log-model = 未判定：紀錄檔標頭不是 shapetrace 能建構的模型，因此不知道參數的形狀
check-decode-noncausal = { $path }：在提示詞內的位置 { $pos }，{ $what } 與較長序列中相同位置的相差 |Δ| 最大 { $delta }：模型讓一個位置讀取之後的詞元，所以沒有快取能給出完整前向傳播的結果（見 causality）
check-reference-plain-error = 未比較：{ $error }
check-reference-fail = { $path }：在相同的權重與輸入上，與宣告的架構{ $fault ->
    [none] {""}
   *[other] （不含 { $fault }）
}{ $declared ->
    [same] {""}
   *[other] 的 { $declared }
}不同（|Δ| 最大 { $delta }）
check-routing-none = 沒有可判定的：沒有執行到專家混合
check-routing-shape-only = n_e 取決於數據：只追蹤形狀的執行記錄每個專家的上限（≤ B·T），而不是它實際接收了多少詞元
check-routing-lost = { $path }：{ $routes } 條路由 (B·T·k) 中只有 { $taken } 條返回
check-routing-sum = { $path }：詞元 { $t } 的 { $k } 個權重總和為 { $sum }；每個詞元的權重總和必須是 1
check-routing-pass = 每個詞元的 { $k } 條路由都到達了專家並返回（{ $mixtures } 個專家混合中，每個 { $routes }/{ $routes }），{ $unchecked ->
    [0] 每個詞元的權重總和都是 1
   *[other] 保留權重之處總和為 1（{ $mixtures } 個中有 { $unchecked } 個超過 4096 個權重，追蹤不保留其數值）
}
check-text = { $text }
check-alone = 無法單獨執行 { $part }
check-probe-moved-stopped = 擾動後的執行在 { $path } 停止
check-model-invalid = 模型無效：{ $error }
check-too-large = 模型太大，無法重新執行（上限 { $limit }）
check-alone-judge-op-refused = 無法單獨執行 { $part }：{ $at }{ $op } 拒絕了它的運算元：{ $error }
check-alone-judge-op-dtype = 無法單獨執行 { $part }：{ $at }{ $op } 拒絕了它的運算元：{ $a } 與 { $b }：矩陣乘法需要單一數據類型；請轉換其中一個
check-alone-judge-stream-shape = 無法單獨執行 { $part }：{ $at }殘差流張量 { $path } 是 { $got }，不是 { $want }
check-alone-judge-stream-dtype = 無法單獨執行 { $part }：{ $at }殘差流張量 { $path } 是 { $got } { $dtype }，不是殘差流的 { $want }
check-alone-judge-finite = 無法單獨執行 { $part }：{ $at }{ $path } 含有非有限值（NaN 或 ±inf）
check-alone-judge-residual-dtype = 無法單獨執行 { $part }：{ $at }殘差相加 { $stream } { $stream_dtype } + { $update } { $update_dtype }：兩個運算元都必須是 { $want }
check-alone-judge-residual-shape = 無法單獨執行 { $part }：{ $at }殘差相加 { $operands }：兩個運算元都必須是 { $want }
check-alone-check-text = 無法單獨執行 { $part }：{ $text }

## Norm 分頁的文字（數字與公式是課程本身的）

lab-norms-layer = LayerNorm：減去平均值，再除以標準差
lab-norms-rms = RMSNorm：除以均方根；不置中
lab-norms-constant = x 是常數：LayerNorm 把它映射為 0（只有 eps 讓除法保持有限）。
lab-norms-layer-gives = LayerNorm 的輸出平均值為 0、RMS 為 1：x 的偏移消失了。
lab-norms-rms-gives = RMSNorm 的輸出 RMS 為 1，並保留 x 的方向 (y ∝ x)。

## 預算分頁的計數測驗：判定（題目與錯誤說明是測驗本身的英文）

lab-budget-quiz-of = 第 { $n } 題，共 { $total } 題：{ $ask }
lab-budget-quiz-right = ✓ 正確：{ $truth }
lab-budget-quiz-wrong = ✗ 錯誤：{ $says }
lab-budget-quiz-skipped = 已略過：{ $truth }

## 並排檢視 (--compare RIGHT)

ui-hint-step-both = 兩側同步
ui-hint-differs = 相異
ui-hint-side = 側
ui-hint-one-model = 單一模型
help-split = --compare：並排檢視／只看左側模型
help-side = --compare：a m p f 切換左側／右側模型
ui-split-no-step = 沒有這一步
ui-split-reads = #{ $step } { $op } · 讀取 { $reads }
ui-split-reads-nothing = 無
ui-split-summary = { $same } 相同 · { $changed } 改變 · { $only_left } 只在 { $left } · { $only_right } 只在 { $right }
ui-split-counts-same = 參數量、FLOPs 與位元組都相同
ui-split-bottom = b：a m p f 切換 { $glyph } { $name } · | 單一模型
ui-split-same = 相同
ui-split-changed = ≠ { $what }
ui-split-only-left = ◀ 只在 { $name }
ui-split-only-right = 只在 { $name } ▶
ui-change-shape = 形狀
ui-change-dtype = 數據類型
ui-change-op = 運算
ui-change-inputs = 輸入
ui-change-position = 位置
ui-count-parameters = 參數量
ui-count-attention-weights-per-block = 每個模組的注意力權重
ui-count-MLP-weights-per-block = 每個模組的前饋網絡權重
ui-count-forward-FLOPs-per-token = 每個詞元的前向 FLOPs
ui-count-weight-bytes = 權重位元組
ui-count-activation-bytes-of-one-forward = 一次前向的激活位元組
ui-split-now-switch = a m p f 現在切換 { $name }
ui-split-switched = { $name } { $what } → { $value }
ui-split-quiz-first = 測驗與揭示模式只跟隨一個模型：先按 z 或 o 結束
ui-split-needs-compare = | 與 b 需要第二個模型：shapetrace --compare RIGHT
ui-status-no-further = 這個方向沒有更多{ $what }
ui-what-pass = 階段
ui-pass-prefill = 預填：提示詞的 { $T } 個詞元一次算完
ui-pass-decode = 解碼 { $n }/{ $steps }：位置 { $pos } 的一個詞元
ui-what-departure = 離開 (B,T,d) 的步驟
ui-what-residual-add = 殘差相加
ui-what-differing-step = 相異的步驟

## 另一個程式的記錄：它的證據、摘要與運算元

check-leak-cause = { $cause ->
    [view] 少了轉置的 view：.view(B, H, T, hd) 把位置切進了注意力頭；拆分請用 .view(B, T, H, hd).transpose(1, 2)，合併請用 .transpose(1, 2).contiguous().view(B, T, d)
    [softmax] 在錯誤的軸上做 softmax（dim=-2 是沿查詢做 softmax；請用 dim=-1），或它之前沒有因果遮罩
    [mask] 形狀或方向錯誤的遮罩（該用 tril 卻用了 triu，或從錯誤的角落切出的 (T, T) 遮罩）
    [reduction] 在位置軸（dim=1）而不是特徵軸（dim=-1）上做歸約
    [batch] 在批次軸（dim=0）上做歸約：沿批次做 Norm 或取平均，會把一個序列混進另一個序列；請在特徵軸（dim=-1）上做
    [product] 在錯誤的軸上做乘積（該用 (-2, -1) 卻寫了 k.transpose(1, 2)，或對 t 求和的 einsum）
   *[other] 一個跨越了必須分開的列的運算：檢查它取的是哪一個軸
}
check-leak-at = { $op }{ $line ->
    [none] {""}
   *[other] {" "}（位於 { $line }）
}
check-evidence-causality-fail = { check-causality-fail }；最早出現在 { check-leak-at }：可能是{ check-leak-cause }{ check-heads-cut }
check-heads-cut = { $cut ->
    [none] {""}
   *[other] ；位於 { $scores } 的注意力分數是 { $scores_axes }{ $pair ->
        [heads] ，是頭對頭
       *[other] {""}
    }，而不是 (B, h, Tq, Tk)：頭在 { $cut } 切分時沒有 transpose(1, 2)
}
check-evidence-positionwise-fail = 單獨執行 { $module }：{ check-positionwise-fail }；其中的 { check-leak-at } 混合了不同的列：可能是{ check-leak-cause }
check-evidence-none = 記錄中沒有 { $check } 的證據{ $says ->
    [none] {""}
   *[other] ；不會只憑它的摘要所說的「{ $says }」就相信
}
check-evidence-skipped = 記錄中的探測沒有執行：{ $reason }
check-summary-disagree = 記錄的摘要說 { $says }，但它的證據說 { $judged }
check-disagrees-check-causality-pass = { check-summary-disagree }：{ check-causality-pass }
check-disagrees-check-positionwise-pass = { check-summary-disagree }：{ check-positionwise-pass }
check-disagrees-check-evidence-causality-fail = { check-summary-disagree }：{ check-evidence-causality-fail }
check-disagrees-check-evidence-positionwise-fail = { check-summary-disagree }：{ check-evidence-positionwise-fail }
check-disagrees-check-text = { check-summary-disagree }：{ $text }
check-summary-count = 記錄的摘要說有 { $said } 個 { $what }，但它的事件有 { $found } 個
check-op-shapes-recorded = { $path }{ $line ->
    [none] {""}
   *[other] {" "}（{ $line }）
}：{ $op } 作用於 { $operands } 會得到 { $want }，但記錄中是 { $got }
check-op-shapes-refused = { $path }{ $line ->
    [none] {""}
   *[other] {" "}（{ $line }）
}：{ $op } 拒絕了 { $operands }：{ $error }，但記錄中是 { $got }
check-residual-operand-from = { $detail }；{ $role ->
    [stream] 殘差流
   *[update] 更新
} { $operand } { $shape } 來自 { $line }
check-residual-replaced = { $module } 的輸出取代了殘差流{ $line ->
    [none] {""}
   *[other] {" "}（位於 { $line }）
}：請寫成 { $add }（{ $n } 次殘差相加，應為 { $want } 次，每個模組 { $per } 次；{ $block } 做了 { $adds } 次）

why-all-reduce = 全歸約（all-reduce）：{ $N } 個裝置各自持有這個輸出的一份部分和，也就是行並行矩陣乘法中自己那些注意力頭或隱藏單元的貢獻，形狀已是完整的 { $shape }。只有它們的總和才是這一層的輸出，所以各裝置把自己的部分相加{ $bias ->
    [1] {"，"}每個裝置都持有完整的偏置，在求和之後只加一次
   *[other] {""}
}。形狀本來就是 (B,T,d)；改變的是每個裝置現在都持有相同的完整數值。環形演算法中每個裝置收發其中的 2·(N−1)/N：{ $bytes }。

why-all-gather = 全收集（all-gather）：{ $N } 個裝置各持有位置的一段，而接下來的步驟需要所有位置（子層的矩陣乘法，或模型的完整輸出），所以每個裝置把自己的一段傳給其他裝置，大家都持有完整的 { $shape }。環形演算法中每個裝置傳送其中的 (N−1)/N：{ $bytes }。

why-reduce-scatter = 歸約分散（reduce-scatter）：{ $N } 個裝置各持有所有位置的部分和；它們被相加，每個裝置只保留自己那一段位置 { $shape }，供逐位置運算的 Norm 與殘差相加使用。它傳送部分和的 (N−1)/N：{ $bytes }，是全歸約的一半。

why-scatter = 序列並行從這裡開始：每個裝置持有相同的 (B,T,d)，這個裝置保留 { $N } 段位置中的第 { $part } 段 { $shape }，不需要通訊。Norm 與殘差相加都是逐位置運算，所以每個裝置各自處理自己那一段。

why-scatter-batch = 專家並行從這裡開始：在專家之外，{ $N } 個裝置是資料並行的，各自對自己的序列執行完整的注意力。每個裝置持有相同的 (B,T,d)，保留 { $N } 段序列中的第 { $part } 段 { $shape }，不需要通訊。（訓練時每個裝置一開始就讀自己的批次；本課切開同一個批次，好讓這些裝置能與單一裝置比對。）

why-all-gather-batch = 序列的全收集：{ $N } 個裝置各自處理自己的序列，它們的輸出並排就是整個批次的輸出 { $shape }，和單一裝置給的一樣。資料並行的執行會讓每個裝置保留自己的部分；本課把它們收集起來，好把輸出當成一個模型的來讀和檢查。環形演算法中每個裝置傳送其中的 (N−1)/N：{ $bytes }。

why-all-to-all-dispatch = 專家 { $e } 的批次，來自每個裝置：{ $N } 個裝置各持有自己的詞元和 E/N 個專家，所以每個裝置切出選了這個專家的行送到這裡，這個裝置按裝置順序疊起收到的行：行數 { $rows } = { $n }，{ $shape }。這些數量來自資料（每個裝置上的路由器選的），{ $n } 行正是單一裝置模型中專家 { $e } 收到的；其中 { $bytes } 來自其他裝置。

why-all-to-all-return = 專家的輸出送回原處：這個裝置的 { $E } 個專家把每個裝置的行送回該裝置，而這個裝置從每個裝置的專家收到自己詞元的行（行數 { $rows }，按裝置順序，也就是專家順序），{ $shape }：每條路由一行，b·T·k = { $routes }，不論資料怎麼選。其中 { $bytes } 來自其他裝置。

why-all-to-all-return-bound = 專家的輸出送回原處：這個裝置的 { $E } 個專家把每個裝置的行送回該裝置，而這個裝置從每個裝置的專家收到自己詞元的行，按專家順序排列，{ $shape }：每條路由一行，b·T·k = { $routes }，不論資料怎麼選。哪個裝置的專家送回多少行來自資料，要有數值才知道；若路由平衡，約有 { $bytes } 來自其他裝置。

why-combine-packed = 每條路由的行回到它的詞元，乘以該詞元給這個專家的權重，一個詞元的 { $k } 份相加：{ $shape }，又是這個裝置那一段殘差流。這些行按專家順序打包送來；詞元的 id 說明哪一段行屬於哪個專家，所以這裡應有 { $slots } 行，形狀也說明確實如此。

why-send = 管線並行：這個階段的區塊到此結束，下一個階段（第 { $stage } 階段）在另一個裝置上持有之後的區塊。殘差流 { $shape }（這個裝置持有的全部）以點對點方式送過去（{ $bytes }），這個裝置在這次前向傳播中沒有別的要算了；訓練時它接著處理下一個微批次。

why-recv = 管線並行：這個階段之前的區塊位在第 { $stage } 階段的裝置上。這個裝置配置一個它預期形狀的緩衝區 { $shape }，前一個階段的輸出就送進這裡；關於那個輸出，這個裝置只得到這些。它的形狀就是階段之間的契約：這個裝置所持有的殘差流的形狀。

## ascii and presenter: 簡報模式放不下的原因下方的提示
ui-present-why-more = … 其餘在詳細窗格（按 P，再按 w）

## cli: 命令列的表格、判定、附註與拒絕訊息（check、trace、params、view、錯誤）

cli-head-step = 步驟
cli-head-path = 路徑
cli-head-op = 運算
cli-head-shape = 形狀
cli-head-dtype = 數據類型
cli-head-marker = 標記
cli-marker-add-ok = ✓ 相加 { $operands }
cli-marker-add-fail = ✗ 相加 { $operands }
cli-marker-leaves = ◆ 離開 { $what }
cli-marker-returns = ↩ 返回
cli-op-at = { $op }，位於 { $line }
cli-failure-stops = ✗ { $check } 停止了前向傳播：{ $shapes }
cli-failure-with = {" "}與{" "}
cli-headline-hold = 全部 { $held } 項檢查都成立
cli-headline-hold-skipped = { $held } 項檢查成立，{ $skipped } 項略過
cli-headline-fail = { $total } 項檢查中有 { $failed } 項失敗
cli-headline-fail-skipped = { $total } 項檢查中有 { $failed } 項失敗，{ $skipped } 項略過
cli-check-line = { $name }（{ $fault }）：{ $headline }
cli-fault-some = 故障 { $fault }
cli-fault-none = 沒有故障
cli-note = 附註：{ $note }
cli-params-model = 模型
cli-params-total = { $name }：{ $total } 個參數（不含偏置 { $nobias } 個）
cli-params-closed-matches = ✓ 符合所宣告架構的封閉式：{ $closed }
cli-params-closed-differs = ✗ 與所宣告架構的封閉式不同：{ $closed }
cli-params-parameters = 參數量（block. 之下的各行是一個模組的）
cli-params-ln-f = ln_f（最終 Norm）
cli-params-ln-f-note = 它的權重與偏置
cli-params-sum = 總計
cli-params-sum-no-bias = 總計（不含偏置）
cli-params-non-embedding = 不含嵌入
cli-params-minus-wpe = 減去 wpe（nanoGPT）
cli-params-minus-wte-wpe = 減去 wte 與 wpe（縮放定律）
cli-params-minus-head = 減去 wte、wpe 與未綁定的 LM 頭
cli-params-one-block = 一個模組
cli-params-block-weights = 模組權重
cli-params-block-weights-note = 注意力 + 前饋網絡的權重，不含偏置與 Norm
cli-params-block-no-bias = 模組（不含偏置）
cli-params-ratio = 前饋網絡 : 注意力 權重 = { $ratio } : 1（前饋網絡佔權重的 { $mlp }，注意力佔 { $attention }）
cli-flops-block = 每個詞元的前向 FLOPs，一個模組（T = { $t }）
cli-flops-window-exact = 視窗 { $window } 精確值
cli-flops-causal-exact = 因果遮罩精確值
cli-flops-qkvo = 注意力 q、k、v、o 矩陣乘法
cli-flops-mlp = 前饋網絡矩陣乘法
cli-flops-matmuls = 矩陣乘法，每個權重 2 次
cli-flops-weights = 2·{ $n } 個權重
cli-flops-scores = 注意力得分 + 加權求和
cli-flops-by-sublayer = 按子層：注意力 { $attention }，前饋網絡 { $mlp }
cli-flops-model = 前向 FLOPs，整個模型
cli-flops-per-token = 每個詞元
cli-flops-per-sequence = 每個長度 { $t } 的序列
cli-flops-and = { $a }，{ $b }
cli-flops-training = 每個詞元的訓練 FLOPs（前向 + 反向）
cli-flops-three-forward = 3 × 前向
cli-flops-backward-twice = 反向 ≈ 2 × 前向
cli-kv-title = 解碼時的鍵/值快取（一個序列：每一層保存每個位置的 k 與 v）
cli-kv-at-context = 上下文 { $ctx } 時
cli-kv-at-context-capped = 上下文 { $ctx } 時，每個視窗的環形緩衝有上限
cli-memory-ep-batch = B/N = 這個裝置上的 { $n } 個序列
cli-memory-title = 記憶體（激活值：每個追蹤到的張量，{ $batch }，T = { $t }）
cli-memory-weights = 權重
cli-memory-activations = 激活值
cli-usage-needs-value = { $arg } 需要一個值，但沒有給
cli-usage-invalid-value = { $arg } 的值 '{ $value }' 無效{ $why }
cli-usage-missing = 缺少必要的參數 { $arg }
cli-usage-unexpected = 未預期的參數 '{ $arg }'
cli-usage-unknown-command = 未知的命令 '{ $command }'
cli-usage-twice = { $arg } 給了兩次；允許：一次
cli-usage-conflict = { $arg } 不能與 { $other } 一起使用
cli-usage-conflict-another = { $arg } 不能與另一個參數一起使用
cli-usage-utf8 = 參數 '{ $arg }' 不是有效的 UTF-8；允許：UTF-8 文字
cli-usage-no-equals = { $arg } 的值之前需要 '='
cli-usage-too-many = { $arg } 多了一個值 '{ $value }'
cli-usage-wrong-number = { $arg } 需要 { $want } 個值，給了 { $given } 個
cli-usage-allowed = { $line }；允許：{ $allowed }
cli-usage-did-you-mean = { $line }；你是指 { $suggested } 嗎？
cli-usage-see-help = { $line }（見 shapetrace --help）
cli-usage-invalid = 無效的參數
cli-unknown-name = 未知的 { $what } '{ $got }'；允許：{ $allowed }
cli-unknown-lang = 允許：en、zh-TW（或 zh_TW）
cli-refuse-watch-alone = --watch 會重新追蹤步進器的模型檔案；允許：shapetrace --config FILE --watch（不加子命令）
cli-refuse-watch-flag = --watch 只重新讀取模型檔案，所以 { $flag } 不適用；允許：--watch 搭配 --config 與模型參數
cli-refuse-compare-stepper = --compare 開啟步進器的並排檢視；允許：shapetrace [模型參數] --compare RIGHT（不加子命令，不加 --watch）；文字輸出請用：shapetrace compare LEFT RIGHT
cli-refuse-faults-flag = faults 列出每個教學故障與各自需要的參數，所以 { $flag } 不適用；允許：--format、--lang
cli-refuse-package-flag = completions 與 man 描述每一個參數，所以 { $flag } 不適用；允許：shapetrace completions SHELL、shapetrace man [COMMAND]
cli-refuse-check-log-flag = check --log 照日誌寫下的樣子判定，所以 { $flag } 不適用；與 --log 一起允許：--format
cli-refuse-params-inputs = --weights 與 --input 不適用於 params，它只從設定計數；允許與它們一起使用：trace、check、probes 與步進器
cli-refuse-grads-out = --grads-out 寫出反向傳播的梯度；允許：--grads-out 搭配 --backward
cli-refuse-values = --values 把張量的數值保留在 JSON 事件中；只允許搭配 --format json 的數值執行
cli-refuse-grads-out-run = --grads-out 需要一次前向傳播完成的數值執行；這一次{ $how ->
    [stopped] 停在一項失敗的檢查
   *[shapes] 只追蹤了形狀
}（見 shapetrace check）
cli-refuse-output-run = --output { $path } 需要一次完成的執行；這一次停在一項失敗的檢查（見 shapetrace check）
cli-refuse-compare-flag = compare 以 LEFT 與 RIGHT 取得兩個模型，所以 { $flag } 不適用；允許：--seq 或 --d-model 等模型參數，它們套用到兩邊
cli-refuse-compare-numeric = compare 只追蹤形狀，所以 --numeric 不適用；允許：--shape-only（compare 本來就這樣做）與 --seq 或 --d-model 等模型參數
cli-refuse-compare-logs-flag = compare 的 LEFT 與 RIGHT 都是追蹤日誌，照寫下的樣子比較，所以 { $flag } 不適用；允許：--format 與 --out
cli-refuse-compare-html-log = compare --format html 會畫出每一邊的模型設定與模組，而追蹤日誌沒有這些；有一邊是日誌時允許：--format table、json 或 markdown
cli-refuse-side = 既不是預設模型也不是模型檔案；允許：{ $presets }，或 .toml 或 config.json 的路徑（- 代表標準輸入）
cli-group-attention-weights = 注意力權重
cli-group-mlp-weights = 前饋網絡權重
cli-group-attention = 注意力
cli-group-mlp = 前饋網絡
cli-group-norms = Norm
cli-group-block = 模組
cli-group-blocks = 全部模組
cli-params-tied = 與 wte 綁定 = 0
cli-flops-per-token-head = L·block + 2·V·d（LM 頭）= { $l }·{ $k } + { $h }
cli-what-preset = 預設模型
cli-what-fault = 故障
cli-what-activation = 激活函數
cli-what-check = 檢查
cli-what-dtype = 數據類型
cli-what-head = 輸出頭
cli-what-norm = Norm
cli-what-placement = Norm 位置
cli-what-positions = 位置編碼
cli-what-qkv-fusion = qkv 融合

## stepper and labs: 揭示模式、輸入時的頁尾、前饋網絡與 Norm 實驗、計數測驗

ui-detail-hidden-reveal = 形狀已隱藏：按 → 揭示
lab-mistake-none = 正確計算
lab-mistake-rows = x 乘上 W1 的列 (row)，而不是它的行 (column)
lab-mistake-relu-after-w2 = 激活函數放在 W2 (Wd) 之後，而不是之前
lab-ffn-title = 手算前饋網絡：{ $what }
lab-ffn-shape = d = { $d } → { $f } → { $dout }，{ $act }，不含偏置
lab-ffn-act-gated = 門控 (SwiGLU)
lab-ffn-feeds = （{ $rows }×{ $cols }：第 j 行 (column) 送入隱藏單元 j）
lab-ffn-adds = （{ $rows }×{ $cols }：第 j 列 (row) 是隱藏單元 j 加上的量）
lab-ffn-head-hidden = { $z } = x·{ $a }（x 與 { $a } 的每一行 (column) 做點積）
lab-ffn-head-rows = { $z } = x·{ $a }ᵀ（✗ x 與 { $a } 的每一列 (ROW) 做點積）
lab-ffn-head-no-act = h（✗ { $b } 之前沒有激活函數）
lab-ffn-head-act-after = ✗ 激活函數放在 { $b } 之後
lab-ffn-head-residual = 殘差：前饋網絡的輸出加回 x
lab-ffn-residual = 殘差
lab-ffn-relu-none = { $h }：每個 z 都是正的，所以 ReLU 什麼也沒改變
lab-ffn-relu-one = { $h }：隱藏單元 { $unit } 被關閉
lab-ffn-relu-many = { $h }：隱藏單元 { $units } 和 { $last } 被關閉
lab-ffn-step-off = ：被關閉
lab-ffn-step-no-relu = （還沒有 ReLU）
lab-ffn-step-no-silu = （還沒有 silu）
lab-ffn-cannot-add = x + y = ({ $d }) + ({ $dout }) ✗ 無法相加：x 有 { $d } 個特徵，y 有 { $dout } 個。{ $b } 把 { $f } 映射到 { $dout }，所以這個前饋網絡不能放在殘差流上：相加需要形狀為 ({ $f }, { $d }) 的 { $b }，映射回 d = { $d }。
lab-ffn-mistake = ✗ 錯誤 { $name }：{ $what }
lab-ffn-same = { $name } = { $v }（相同）
lab-ffn-correct = { $name } = { $v }（正確為 { $good }）
lab-ffn-hides = 這個 x 藏住了錯誤：換一個試試
lab-ffn-list = 、
lab-ffn-stopped = x 有 { $d } 個數，但 { $w } 的每一列 (row) 有 { $f } 個：乘積配不成對，所以這個錯誤在第一步就停下。只有 d = f（方陣 { $w }）時它才不會被察覺；每一行 (column) 有 { $d } 個數，x 的每個元素對應一個。
lab-ffn-weights = 權重，d = { $d }，f = { $f }（只算矩陣，如課程的算法：不含偏置；Norm 與嵌入不在其中）
lab-ffn-count-mlp = 前饋網絡
lab-ffn-count-gated = 門控前饋網絡
lab-ffn-count-attention = 注意力
lab-ffn-count-block = 模組
lab-ffn-count-gated-block = 門控模組
lab-ffn-count-same-f = （相同 f 下為 1.5 倍）
lab-ffn-count-qkvo = （Q、K、V 與 O）
lab-ffn-count-biases = 偏置不計在上面；前饋網絡會多 f + d = { $mlp } 個（門控為 2·f + d = { $gated }）
lab-ffn-these = 這些矩陣：{ $sum } = { $n } 個權重；若 { $b } 映射回 d，會是 2·d·f = { $mlp }
lab-probe-question = 先預測：按位置前饋網絡會直接平均相鄰的詞元嗎？
lab-probe-setup = 探針：3 個詞元通過同一個前饋網絡（正確計算）；詞元 { $moved } 的每個特徵都加 1。
lab-probe-token = 詞元 { $t }  x = { $x }   y = { $before } → { $after }   { $mark }
lab-probe-moved-changed = ● 改變了：它被移動了
lab-probe-moved-same = · 沒有改變，儘管它被移動了
lab-probe-other-changed = ✗ 改變了：它讀取了另一個詞元
lab-probe-other-same = · 沒有改變
lab-probe-no = 答案：不會。只有被移動的詞元的輸出改變：輸出的第 t 列只取決於輸入的第 t 列（3 次隨機移動的 is_positionwise：true）。位置之間的混合全部發生在注意力中。
lab-probe-yes = 答案：會：另一個詞元的輸出改變了，所以這個函數混合了位置（is_positionwise：false）。
lab-norms-mean = 平均值
lab-norms-var = 變異數
lab-count-plain = { $text }
lab-count-not-it = { $text } 不對：{ $truth }
lab-count-ask-mlp = 本模型：一個模組有多少前饋網絡權重（只算矩陣，不含偏置）？
lab-count-ask-swiglu = 把本模型的前饋網絡換成 SwiGLU（三個矩陣），取參數量大致相同的寬度 d_ff' = round(2/3·{ $f }) = { $matched }：每個模組有多少前饋網絡權重？
lab-count-ask-attn = GPT-2 small (d = { $d })：一個模組有多少注意力權重（只算矩陣，不含偏置）？
lab-count-ask-total = GPT-2 small：總參數量是多少？
lab-count-ask-share = GPT-2 small，T = { $T }：一個模組的 FLOPs 中前饋網絡佔多少（%）？
lab-count-formula-mlp = { $k } 個 d·d_ff = { $d }·{ $f } 的矩陣
lab-count-formula-share = 前饋網絡矩陣乘法 FLOPs / (全部矩陣乘法 FLOPs + 得分與加權求和的乘積)
lab-count-only-w1 = { $n } 只算了 W1 (d·d_ff = { $d }·{ $f })；前饋網絡有{ $gated ->
    [yes] 三
   *[no] 兩
}個這樣大小的矩陣
lab-count-swiglu-kept-4d = { $n } 是保持 d_ff = 4·d = { $f4 } 的 SwiGLU；這個模型的 d_ff 是 { $f }
lab-count-three-matrices = { $n } 是三個矩陣，像 d_ff = { $f } 的 SwiGLU (3·d·d_ff)；這個前饋網絡 ({ $act }) 只有兩個
lab-count-biases = { $n } 含偏置；這一列只算矩陣
lab-count-swiglu-kept = { $n } 是保持 d_ff = { $f } 的 SwiGLU (3·{ $d }·{ $f })；參數量相同的寬度是 { $matched }
lab-count-two-matrix = { $n } 是 d_ff = { $f } 的兩矩陣前饋網絡；SwiGLU 在 { $matched } 有三個
lab-count-no-o = { $n } 是 3·d²：q、k 和 v，但輸出投影 O 是第四個 d×d 矩陣
lab-count-no-wpe = { $n } 沒算 wpe（nanoGPT 的算法）；總數要算它
lab-count-lm-head = { $n } 多加了一個獨立的 LM 頭 (V·d = { $vd })；GPT-2 與 wte 權重綁定，所以不增加參數
lab-count-param-share = { $p }% 是前饋網絡佔參數量的比例；QKᵀ 與加權求和花 FLOPs 卻沒有權重，所以它佔 FLOPs 的比例較低
lab-count-not-count = '{ $text }' 不是確切的計數；允許：整數，例如 16384、16,384 或 16_384
lab-count-not-percent = '{ $text }' 不是百分比；允許：例如 54.5 或 54.5%
ui-hint-text = 都是文字，q l h 也是
ui-hint-clear = 清除
ui-mark-add-ok-short = ✓ 相加
ui-mark-add-bad-short = ✗ 相加

# 函式庫的錯誤（見 en.ftl 的說明）
err-read = 無法讀取 { $path }：{ $io ->
    [not-found] 沒有這個檔案或資料夾
    [denied] 沒有權限
    [directory] 這是資料夾；允許：一般檔案、管道，或 - 代表標準輸入
   *[other] { $reason }
}
err-file-too-large = { $path } 有 { $size } 位元組；允許：最多 { $max } 位元組的模型檔案
err-npy-corrupt = { $path } 不是有效的 .npy 檔案：{ $reason }；允許：{ $allowed }
err-npy-dtype = { $path } 的數據類型是 '{ $descr }'；允許：'<f4'（float32，小端序）
err-npy-ids-dtype = { $path } 的數據類型是 '{ $descr }'；允許：'<i8'（int64）或 '<i4'（int32），小端序
err-npy-fortran = { $path } 是 Fortran 順序；允許：C 順序（numpy.ascontiguousarray）
err-tokens-empty = --tokens '{ $input }' 沒有任何詞元 id；允許：像 '1,2,3;4,5,6' 的 id（列以 ';' 分隔，id 以 ',' 分隔），或形狀為 (B, T) 的 int64 .npy
err-tokens-empty-row = --tokens 第 { $row } 列是空的；允許：每一列至少一個 id，像 '1,2,3;4,5,6'（列以 ';' 分隔，id 以 ',' 分隔），或形狀為 (B, T) 的 int64 .npy
err-tokens-item = --tokens 在 ({ $row }, { $col }) 的項目 '{ $item }' { $why ->
    [empty] 是空的
    [negative] 是負數
    [large] 太大
   *[whole] 不是整數
}；允許：0 到 V − 1 的 id（整數），或 int64 .npy 的路徑
err-tokens-negative = { $path } 在 ({ $row }, { $col }) 有詞元 id { $id }；允許：0 以上的 id
err-tokens-ragged = --tokens 第 { $row } 列有 { $len } 個 id，但第 0 列有 { $first } 個；允許：每一列都是同一個長度 T
err-tokens-rank = { $path } 的陣列形狀是 { $shape }；允許：(B, T) 或 (T,)
err-tokens-too-many = --tokens 有 { $count } 個 id；允許：最多 { $max } 個 (1 << 20)
err-tokens-range = 在 ({ $row }, { $col }) 的詞元 id { $id } 超出範圍；允許：{ $vocab ->
    [0] 沒有（詞彙量 0）
   *[other] 0 到 { $max }（詞彙量 { $vocab }）
}
err-tokens-and-input = --tokens 與 --input 衝突：一次執行從詞元 id或 x0 其中之一開始；允許：兩者擇一
err-tokens-no-vocab = --tokens 需要有詞彙表的模型；允許：--vocab V、--preset lesson-lm 或 gpt2 預設模型、config.json，或含 wte 的檢查點
err-in-model-file = { $inner }（模型來自 { $path }）
err-input-shape = --input 是 { $got }，但模型的殘差流是 { $want }；允許：d_model 為 { $d } 的 (B, T, d_model)
err-decode-input = --decode { $steps } 搭配 --input：每個解碼步要餵入一個新詞元，而給定的 x0 (B, T, d_model) 只含提示詞；允許：--decode 搭配 --tokens 或種子輸入，或不加 --decode 的 --input
err-input-rank = --input 是 { $got }；允許：三維陣列 (B, T, d_model)
err-input-dims = --{ $flag } { $value } 與 { $from } { $path } 矛盾，它的 { $dim } 是 { $file }；允許：--{ $flag } { $file }，或不加 --{ $flag }（B 與 T 來自 { $from }）
err-cancelled = 執行已取消
err-config-zero = { $name } 至少要是 1（得到 0）
err-config-too-large = { $name } { $got } 太大；允許：1..={ $max }
err-config-heads = d_model { $d } 不能被 heads { $heads } 整除；允許的 heads：{ $allowed }
err-config-kv-heads = heads { $heads } 不能被 kv-heads { $kv } 整除；允許的 kv-heads：{ $allowed }
err-config-seq = seq { $seq } 比 context { $context } 長；允許：seq 1..={ $context }，或加大 --context
err-config-eps = eps { $got } 必須是大於 0 的有限數
err-config-rope-theta = rope_theta { $got } 必須是大於 1 的有限數
err-config-parallel = 並行殘差需要 placement pre（得到 { $got }）；允許：placement pre 搭配 parallel
err-config-odd-rotary = head_dim { $hd } 是奇數；旋轉位置編碼成對轉動特徵，所以允許：偶數的 head_dim
err-config-window-encoder = window { $window } 需要解碼器：編碼器的注意力讀取每個位置；允許：編碼器用 window 0
err-config-too-big = 數值執行（{ $why }）大約需要 { $need } 記憶體，超過 --max-memory 的上限 { $limit }；加大 --max-memory，或縮小維度
err-config-conflict = { $a } 與 { $b } 衝突：{ $b } 需要數值執行；兩者擇一
err-config-split = { $field } { $got } 不能被 { $by } { $n } 整除；允許的 { $by }：{ $allowed }
err-config-stages = layers { $got } 不能被 pp { $pp } 整除；允許的 pp：{ $allowed }

# 分散在多個裝置上的模型的 params（--tp、--pp、--ep、--sp）
cli-split-over = 分散在 { $n } 個裝置上（{ $how }）：以下每個計數都是裝置 { $device } 的
cli-split-how-ep = 專家並行：每個裝置持有 { $experts } 個專家中的 { $held } 個，以及 { $batch } 個序列中的 { $b } 個
cli-split-how = { $form ->
    [tp-pp] 張量並行 { $tp }{ $sp } × 管線並行 { $pp } 個階段
    [pp] 管線並行 { $pp } 個階段
   *[tp] 張量並行{ $sp }
}
cli-split-sp = 與序列並行
cli-split-vocab = 詞彙表 { $v }{ $pad ->
    [one] ，補到 { $padded }（1 列零，--pad-vocab）
    [many] ，補到 { $padded }（{ $zeros } 列零，--pad-vocab）
   *[none] {""}
}：每個裝置持有 wte（以及不綁定的輸出頭）的 { $rows } 列；查表結果做全歸約，logits 做全收集
cli-pipe-stages = 管線：{ $pp } 個階段，每段 { $blocks } 個模組；裝置 { $device } 是 { $pp } 段中的第 { $stage } 段，模組 { $from }..={ $to }{ $end ->
    [first] ，輸入從這裡進入
    [last] ，輸出從這裡離開
   *[none] {""}
}
cli-pipe-bubble = 氣泡 (M−1)/(m+M−1) = ({ $pp }−1)/({ $m }+{ $pp }−1) = { $idle }/{ $of } = 每一步有 { $share } 的時間閒置，m = { $m } 個微批次（--micro-batches）
cli-pipe-in-flight = 訓練時，1F1B 在這個階段同時保留 min(M−s, m) = min({ $pp }−{ $s }, { $m }) = { $n } 個微批次的激活值（s 從 0 起算；GPipe：全部 { $m } 個）：記憶體一節中激活值的 { $n } 倍
cli-comm-title = 每次前向傳播的通訊（{ $how }）
cli-comm-how-ep = 這個裝置送出的量；只有在路由平衡時（這裡如此假設），all-to-all 收到的才一樣多
cli-comm-how-pp = 這個裝置送出的量；環狀通訊收到的一樣多，recv 收到的是前一段送出的
cli-comm-how-ring = 每一步送出與收到的一樣多；環狀通訊
cli-comm-step = 步驟
cli-comm-count = 次數
cli-comm-each = 每次送出
cli-comm-all-reduce = 它的 2·(N−1)/N
cli-comm-send = 全部，送到下一段
cli-comm-recv = 不送：它接收全部
cli-comm-dispatch = 送往一個專家槽位的路由的 (N−1)/N，路由平衡（形狀：上限，B·T 列）
cli-comm-return = 它的路由列的 (N−1)/N，路由平衡
cli-comm-gather = 全部的 (N−1)/N
cli-comm-one-block = 一個模組
cli-comm-one-forward = 一次前向傳播
cli-params-active = 每個詞元實際使用
cli-params-active-held = 這個裝置的總數，每個模組持有的 { $held } 個專家按一個詞元實際執行的 { $k } 個計算，不論由哪個裝置持有
cli-params-active-skips = 總數減去每個模組 { $experts } 個專家中詞元跳過的 { $skipped } 個
cli-kv-mha = 若用 MHA，需要每個詞元 { $bytes } B（{ $dtype }，2·L·h·hd·bytes，h = { $heads }）：{ $kv } 個 K/V 頭的快取小 { $times } 倍
cli-kv-window = 滑動視窗 { $window }：{ $layers } 層中有 { $windowed } 層最多保留 { $window } 個位置，是環形緩衝（所以上下文長度下的快取小於每個詞元 × 上下文）
