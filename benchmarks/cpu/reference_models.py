"""PyTorch-Python twins of scalestudy's C++ models, parameter for parameter and under the same
dotted names, so a state saved by the C++ side (--dump-initial-state) loads with
load_state_dict(strict=True):

- SmallCnn: harness/models/small_cnn.cpp
- ResNet18Cifar: harness/models/resnet.cpp (CIFAR stem: 3x3 stride-1, no max-pool)
- UNet: workloads/ddpm/unet.cpp + unet_blocks.cpp, with its noise schedule
  (noise_schedule.cpp, linear betas)
- Gpt: scalestudy-lm's decoder-only language model (GPT-2 layout: pre-norm blocks, causal
  self-attention, tanh-GELU MLP, learned positions, head tied to the token embedding)

Modules register their children in the C++ order, so parameters() (and DDP's buckets) come
in the same order on both sides.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCnn(nn.Module):
    def __init__(self, in_channels=1, image_size=28, num_classes=10):
        super().__init__()
        feature_size = ((image_size - 2) // 2 - 2) // 2
        self.conv1 = nn.Conv2d(in_channels, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.fc1 = nn.Linear(64 * feature_size * feature_size, 128)
        self.fc2 = nn.Linear(128, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


class BasicBlock(nn.Module):
    def __init__(self, in_planes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or in_planes != planes:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_planes, planes, 1, stride, 0, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (self.downsample(x) if self.downsample is not None else x))


class ResNet18Cifar(nn.Module):
    def __init__(self, in_channels=3, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, 64, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        in_planes = 64
        for index in range(4):
            planes, stride = 64 << index, 1 if index == 0 else 2
            setattr(self, f"layer{index + 1}", nn.Sequential(
                BasicBlock(in_planes, planes, stride), BasicBlock(planes, planes, 1)))
            in_planes = planes
        self.fc = nn.Linear(in_planes, num_classes)
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def timestep_embedding(timesteps, dim):
    half = dim // 2
    frequencies = torch.exp(torch.arange(half, dtype=torch.float32) * (-math.log(10000.0) / half))
    angles = timesteps.float().unsqueeze(1) * frequencies.unsqueeze(0)
    return torch.cat([torch.sin(angles), torch.cos(angles)], 1)


def conv3x3(in_channels, out_channels, stride=1):
    return nn.Conv2d(in_channels, out_channels, 3, stride, 1)


class GroupNorm32(nn.GroupNorm):
    def forward(self, x):
        return super().forward(x.float()).type(x.dtype)


def group_norm(channels):
    return GroupNorm32(math.gcd(32, channels // 2), channels)


class ResidualBlock(nn.Module):
    def __init__(self, in_channels, out_channels, time_channels):
        super().__init__()
        self.norm1 = group_norm(in_channels)
        self.norm2 = group_norm(out_channels)
        self.conv1 = conv3x3(in_channels, out_channels)
        self.conv2 = conv3x3(out_channels, out_channels)
        self.time_projection = nn.Linear(time_channels, out_channels)
        self.skip = nn.Conv2d(in_channels, out_channels, 1) if in_channels != out_channels else None

    def forward(self, x, time):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.time_projection(F.silu(time)).unsqueeze(-1).unsqueeze(-1)
        h = self.conv2(F.silu(self.norm2(h)))
        return (self.skip(x) if self.skip is not None else x) + h


class SelfAttention(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.norm = group_norm(channels)
        self.qkv = nn.Conv2d(channels, 3 * channels, 1)
        self.projection = nn.Conv2d(channels, channels, 1)

    def forward(self, x):
        batch, channels, height, width = x.shape
        q, k, v = self.qkv(self.norm(x)).reshape(batch, 3 * channels, -1).chunk(3, 1)
        weights = torch.softmax(torch.bmm(q.transpose(1, 2), k) / math.sqrt(channels), -1)
        attended = torch.bmm(v, weights.transpose(1, 2))
        return x + self.projection(attended.reshape(batch, channels, height, width))


class UNetBlock(nn.Module):
    def __init__(self, in_channels, out_channels, time_channels, with_attention):
        super().__init__()
        self.residual = ResidualBlock(in_channels, out_channels, time_channels)
        self.attention = SelfAttention(out_channels) if with_attention else None

    def forward(self, x, time):
        h = self.residual(x, time)
        return self.attention(h) if self.attention is not None else h


class UNet(nn.Module):
    """The DDPM noise predictor; defaults are scalestudy-ddpm's small preset."""

    def __init__(self, image_channels=1, image_size=28, base_channels=64,
                 channel_multipliers=(1, 2, 2), res_blocks=2, attention_max_size=16):
        super().__init__()
        self.base_channels, self.res_blocks = base_channels, res_blocks
        self.levels = len(channel_multipliers)
        time_channels = 4 * base_channels

        def attends(level):
            side = image_size
            for _ in range(level):
                side = (side + 1) // 2
            return side <= attention_max_size

        self.input_conv = conv3x3(image_channels, base_channels)
        self.time_mlp = nn.Sequential(nn.Linear(base_channels, time_channels), nn.SiLU(),
                                      nn.Linear(time_channels, time_channels))
        skip_channels, channels = [base_channels], base_channels
        down, downsample = nn.ModuleList(), nn.ModuleList()
        for level, multiplier in enumerate(channel_multipliers):
            for _ in range(res_blocks):
                down.append(UNetBlock(channels, base_channels * multiplier, time_channels,
                                      attends(level)))
                channels = base_channels * multiplier
                skip_channels.append(channels)
            if level + 1 < self.levels:
                downsample.append(conv3x3(channels, channels, 2))
                skip_channels.append(channels)
        self.down, self.downsample = down, downsample
        self.middle_attention = UNetBlock(channels, channels, time_channels, True)
        self.middle_residual = ResidualBlock(channels, channels, time_channels)
        up, upsample = nn.ModuleList(), nn.ModuleList()
        for level in reversed(range(self.levels)):
            for _ in range(res_blocks + 1):
                in_channels = channels + skip_channels.pop()
                channels = base_channels * channel_multipliers[level]
                up.append(UNetBlock(in_channels, channels, time_channels, attends(level)))
            if level > 0:
                upsample.append(conv3x3(channels, channels))
        self.up, self.upsample = up, upsample
        self.output_norm = group_norm(channels)
        self.output_conv = conv3x3(channels, image_channels)

    def forward(self, noisy, timesteps):
        time = self.time_mlp(timestep_embedding(timesteps, self.base_channels))
        h = self.input_conv(noisy)
        skips = [h]
        for level in range(self.levels):
            for block in range(self.res_blocks):
                h = self.down[level * self.res_blocks + block](h, time)
                skips.append(h)
            if level + 1 < self.levels:
                h = self.downsample[level](h)
                skips.append(h)
        h = self.middle_residual(self.middle_attention(h, time), time)
        for up_level in range(self.levels):
            for block in range(self.res_blocks + 1):
                h = self.up[up_level * (self.res_blocks + 1) + block](
                    torch.cat([h, skips.pop()], 1), time)
            if up_level + 1 < self.levels:
                h = F.interpolate(h, size=(skips[-1].size(2), skips[-1].size(3)), mode="nearest")
                h = self.upsample[up_level](h)
        return self.output_conv(F.silu(self.output_norm(h)))


class LinearNoiseSchedule:
    """DDPM's linear betas (1e-4 .. 0.02 for T = 1000), tables computed in double."""

    def __init__(self, timesteps=1000):
        scale = 1000.0 / timesteps
        first, last = scale * 1e-4, scale * 0.02
        product, signal, spread = 1.0, [], []
        for t in range(timesteps):
            fraction = t / (timesteps - 1) if timesteps > 1 else 0.0
            product *= 1 - (first + (last - first) * fraction)
            signal.append(math.sqrt(product))
            spread.append(math.sqrt(1 - product))
        self.timesteps = timesteps
        self.sqrt_alpha_bars = torch.tensor(signal, dtype=torch.float64).float()
        self.sqrt_one_minus_alpha_bars = torch.tensor(spread, dtype=torch.float64).float()

    def add_noise(self, clean, noise, timesteps):
        shape = [-1] + [1] * (clean.dim() - 1)
        signal = self.sqrt_alpha_bars.index_select(0, timesteps).view(shape)
        spread = self.sqrt_one_minus_alpha_bars.index_select(0, timesteps).view(shape)
        return signal * clean + spread * noise


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention: one c_attn projection to q, k, v; c_proj after."""

    def __init__(self, d_model, n_head):
        super().__init__()
        if d_model % n_head != 0:
            raise ValueError(f"d_model {d_model} is not a multiple of n_head {n_head}")
        self.n_head, self.d_model = n_head, d_model
        self.c_attn = nn.Linear(d_model, 3 * d_model)
        self.c_proj = nn.Linear(d_model, d_model)
        # The causal mask (the lower triangle, cached) is no buffer: the C++ model has none,
        # so none is in its state, and gloo cannot broadcast a bool buffer when DDP syncs
        # the module.
        self.mask = None

    def causal_mask(self, length, device):
        if self.mask is None or self.mask.size(0) != length or self.mask.device != device:
            self.mask = torch.ones(length, length, dtype=torch.bool, device=device).tril()
        return self.mask

    def forward(self, x):
        batch, length, d_model = x.shape
        head_dim = d_model // self.n_head
        q, k, v = self.c_attn(x).split(d_model, dim=2)
        q = q.view(batch, length, self.n_head, head_dim).transpose(1, 2)
        k = k.view(batch, length, self.n_head, head_dim).transpose(1, 2)
        v = v.view(batch, length, self.n_head, head_dim).transpose(1, 2)
        if hasattr(F, "scaled_dot_product_attention"):  # torch >= 2.0
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(head_dim))
            att = att.masked_fill(self.causal_mask(length, x.device).logical_not(),
                                  float("-inf"))
            y = torch.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(batch, length, d_model))


class Mlp(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.c_fc = nn.Linear(d_model, 4 * d_model)
        self.c_proj = nn.Linear(4 * d_model, d_model)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class GptBlock(nn.Module):
    def __init__(self, d_model, n_head):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d_model, eps=1e-5)
        self.attn = CausalSelfAttention(d_model, n_head)
        self.ln_2 = nn.LayerNorm(d_model, eps=1e-5)
        self.mlp = Mlp(d_model)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt(nn.Module):
    """scalestudy-lm's decoder-only language model; defaults are its tiny preset on bytes.

    forward(idx [B, T] int64) returns logits [B, T, vocab]; loss(logits, targets) is the
    mean cross entropy in fp32. No head parameter: the logits use wte.weight (tied). The
    initialisation (normal 0.02, biases 0, both c_proj weights 0.02 / sqrt(2 n_layer)) only
    matters when Python runs alone; the side by side loads the C++ side's initial state.
    """

    def __init__(self, n_layer=4, n_head=4, d_model=128, seq_len=128, vocab=256):
        super().__init__()
        self.seq_len, self.vocab = seq_len, vocab
        self.wte = nn.Embedding(vocab, d_model)
        self.wpe = nn.Embedding(seq_len, d_model)
        self.h = nn.ModuleList(GptBlock(d_model, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(d_model, eps=1e-5)
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, 0.0, 0.02)
            if isinstance(module, nn.Linear):
                nn.init.zeros_(module.bias)
        for name, parameter in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(parameter, 0.0, 0.02 / math.sqrt(2 * n_layer))

    def forward(self, idx):
        length = idx.size(1)
        if length > self.seq_len:
            raise ValueError(f"sequence of {length} tokens exceeds seq_len {self.seq_len}")
        positions = torch.arange(length, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(positions)
        for block in self.h:
            x = block(x)
        return F.linear(self.ln_f(x), self.wte.weight)

    def loss(self, logits, targets):
        return F.cross_entropy(logits.float().view(-1, self.vocab), targets.reshape(-1))


def gpt(n_layer, n_head, d_model, seq_len, vocab):
    """The factory of scalestudy-lm's explicit sizes (--n-layer ... --vocab)."""
    return Gpt(n_layer=n_layer, n_head=n_head, d_model=d_model, seq_len=seq_len, vocab=vocab)
