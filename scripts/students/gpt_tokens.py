"""A whole nanoGPT ``GPT``, token ids in, logits and loss out.

Style: nanoGPT's model class itself: ``transformer`` a ModuleDict of
``wte`` (token embedding, vocab 50), ``wpe`` (learned positions,
block_size 8), the blocks in the ModuleList ``h`` and ``ln_f``; an
``lm_head`` tied to ``wte``; ``forward(idx, targets=None)`` returns
``(logits, loss)``, the loss None without targets. (nanoGPT's inference path
keeps only the last position's logits; here every position's are returned.)
Its input is token ids, so it is exported with ``--tokens``, not ``--input``.

What a student should see: every check passes (4 residual adds of
(2,4,64) + (2,4,64) between the embeddings and ln_f, causality and
positionwise hold).

    python scripts/shapetrace_export.py scripts/students/gpt_tokens.py:GPT \\
        --tokens 2,4 --out gpt_tokens.jsonl
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB_SIZE, BLOCK_SIZE, N_LAYER, N_HEAD, N_EMBD = 50, 8, 2, 4, 64


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.n_head = N_HEAD
        self.c_attn = nn.Linear(N_EMBD, 3 * N_EMBD)
        self.c_proj = nn.Linear(N_EMBD, N_EMBD)
        mask = torch.tril(torch.ones(BLOCK_SIZE, BLOCK_SIZE))
        self.register_buffer("bias", mask.view(1, 1, BLOCK_SIZE, BLOCK_SIZE))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(N_EMBD, 4 * N_EMBD)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * N_EMBD, N_EMBD)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(N_EMBD)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(N_EMBD)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(VOCAB_SIZE, N_EMBD),
                wpe=nn.Embedding(BLOCK_SIZE, N_EMBD),
                h=nn.ModuleList([Block() for _ in range(N_LAYER)]),
                ln_f=nn.LayerNorm(N_EMBD),
            )
        )
        self.lm_head = nn.Linear(N_EMBD, VOCAB_SIZE, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying

    def forward(self, idx, targets=None):
        b, t = idx.size()
        assert t <= BLOCK_SIZE, f"sequence of {t} is longer than block_size {BLOCK_SIZE}"
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        tok_emb = self.transformer.wte(idx)  # (b, t, n_embd)
        pos_emb = self.transformer.wpe(pos)  # (t, n_embd)
        x = tok_emb + pos_emb
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        logits = self.lm_head(x)  # (b, t, vocab_size)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss
