#!/usr/bin/env python3
# ===- bench/models/make-models.py - Exports the generated model zoo -----=== #
#
# Part of Plumb. Builds a broad set of real architectures (torchvision, timm,
# HF transformers from configs, recurrent taggers and recognisers,
# detectors and segmenters) with seeded random weights, exports each with
# torch's default exporter (dynamo=True, its default opset) and with the
# legacy TorchScript exporter (dynamo=False, opset 17), and writes for each
# export OUT/<arch>__<exporter>/{model.onnx, inputs/, reference/,
# meta.json} and a line of OUT/manifest.jsonl (zoo_common.py describes the
# layout). An export that fails in torch is recorded with its error
# (status "export-failed"), not hidden. Nothing is downloaded: weights come
# from torch.manual_seed, inputs from a seeded generator.
#
# usage: make-models.py --out DIR [--only A,B] [--exporters dynamo,legacy17]
#                       [--list] [--skip-existing] [--no-dynamic | --dynamic-only]
#                       [--manifest-tsv FILE] [--threads N]
#
# Runs with the model-making venv (bench/models/requirements.txt).
#
# ===----------------------------------------------------------------------=== #
import argparse
import contextlib
import io
import json
import os
import sys
import time
import traceback
import warnings
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo_common  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

LEGACY_OPSET = 17
IMAGENET_MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
IMAGENET_STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)

ARCHS = {}


def arch(name, source, **opts):
    """Registers a builder: () -> (module, [(input name, tensor)], info)."""
    def deco(fn):
        ARCHS[name] = dict(fn=fn, source=source, **opts)
        return fn
    return deco


def gen(name):
    g = torch.Generator().manual_seed(zlib.crc32(name.encode()) & 0x7FFFFFFF)
    return g


def image(g, n=1, c=3, h=224, w=224):
    """ImageNet-normalised pixels that were uniform in [0, 1]."""
    x = torch.rand(n, c, h, w, generator=g)
    if c == 3:
        x = (x - IMAGENET_MEAN) / IMAGENET_STD
    return x


def calibrate_bn(model, make_batch):
    """Gives BatchNorm layers the statistics of real activations: one
    forward in training mode on a random batch of two, cumulative averages,
    then eval. Untrained running stats (0 and 1) would let activations of
    deep nets grow without bound, which real models never do."""
    bns = [m for m in model.modules()
           if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return model.eval()
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    model.train()
    with torch.no_grad():
        model(*make_batch())
    return model.eval()


class Outputs(nn.Module):
    """Calls a HF model with keyword inputs and returns chosen outputs as a
    tuple of tensors (the exporters want tensors, not ModelOutput)."""

    def __init__(self, model, names, keys):
        super().__init__()
        self.model, self.names, self.keys = model, names, keys

    def forward(self, *args):
        out = self.model(**dict(zip(self.names, args)))
        return tuple(out[k] for k in self.keys)


class DecoderStep(nn.Module):
    """One decoding step of a causal LM with a KV cache: the past keys and
    values come in as 2*L tensors [B, kv_heads, past, head_dim], the present
    ones go out after the logits."""

    def __init__(self, model, layers):
        super().__init__()
        self.model, self.layers = model, layers

    def forward(self, input_ids, attention_mask, *past):
        from transformers import DynamicCache
        cache = DynamicCache(
            [(past[2 * i], past[2 * i + 1]) for i in range(self.layers)],
            config=self.model.config)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         past_key_values=cache, use_cache=True)
        pkv = out.past_key_values
        presents = []
        for i in range(self.layers):
            layer = pkv.layers[i]
            presents += [layer.keys, layer.values]
        return (out.logits, *presents)


# ---------------------------------------------------------------------------
# torchvision (weights=None)
# ---------------------------------------------------------------------------

def tv(name, size, ctor_name=None, **kw):
    def build():
        import torchvision.models as tvm
        torch.manual_seed(0)
        m = getattr(tvm, ctor_name or name)(weights=None, **kw)
        g = gen(name)
        calibrate_bn(m, lambda: (image(g, 2, 3, size, size),))
        return m, [("input", image(g, 1, 3, size, size))], {}
    return build


for _n, _s, _kw in [
        ("resnet18", 224, {}), ("resnet50", 160, {}),
        ("mobilenet_v2", 224, {}), ("mobilenet_v3_small", 224, {}),
        ("mobilenet_v3_large", 224, {}), ("efficientnet_b0", 224, {}),
        ("convnext_tiny", 160, {}), ("densenet121", 160, {}),
        ("squeezenet1_1", 224, {}), ("shufflenet_v2_x1_0", 224, {}),
        ("regnet_y_400mf", 224, {}), ("swin_t", 224, {}),
        ("vit_b_16", 112, {"image_size": 112}),
        ("resnext50_32x4d", 128, {}), ("mnasnet0_5", 224, {}),
        ("googlenet", 160, {"aux_logits": False, "init_weights": True}),
        ("inception_v3", 160, {"aux_logits": False, "init_weights": True}),
        ("maxvit_t", 224, {})]:
    arch("tv_" + _n, "torchvision 0.29.2 %s(weights=None) @%d" % (_n, _s))(
        tv(_n, _s, **_kw))


def tv_seg(name, size):
    def build():
        import torchvision.models.segmentation as seg
        torch.manual_seed(0)
        m = getattr(seg, name)(weights=None, weights_backbone=None,
                               num_classes=21)
        g = gen(name)

        class Out(nn.Module):
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, x):
                return self.m(x)["out"]
        w = Out(m)
        calibrate_bn(w, lambda: (image(g, 2, 3, size, size),))
        return w, [("input", image(g, 1, 3, size, size))], {}
    return build


arch("tv_lraspp_mobilenet_v3_large",
     "torchvision 0.29.2 lraspp_mobilenet_v3_large(weights=None) @224")(
    tv_seg("lraspp_mobilenet_v3_large", 224))
arch("tv_deeplabv3_mobilenet_v3_large",
     "torchvision 0.29.2 deeplabv3_mobilenet_v3_large(weights=None) @224")(
    tv_seg("deeplabv3_mobilenet_v3_large", 224))


@arch("tv_ssdlite320_mobilenet_v3_large",
      "torchvision 0.29.2 ssdlite320_mobilenet_v3_large(weights=None), "
      "eval with post-processing (NMS)")
def tv_ssdlite():
    import torchvision.models.detection as det
    torch.manual_seed(0)
    m = det.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None,
                                          num_classes=91)
    g = gen("ssdlite")

    class Out(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            r = self.m([x[0]])[0]
            return r["boxes"], r["scores"], r["labels"]
    # Calibrate the backbone's BN on a batch, in eval for the heads.
    calibrate_bn(m.backbone, lambda: (image(g, 2, 3, 320, 320),))
    m.eval()
    return Out(m), [("input", torch.rand(1, 3, 320, 320, generator=g))], {}


# ---------------------------------------------------------------------------
# timm (pretrained=False)
# ---------------------------------------------------------------------------

def timm_model(name, size):
    def build():
        import timm
        torch.manual_seed(0)
        m = timm.create_model(name, pretrained=False)
        g = gen(name)
        calibrate_bn(m, lambda: (image(g, 2, 3, size, size),))
        return m, [("input", image(g, 1, 3, size, size))], {}
    return build


for _n, _s in [("mobilevit_xxs", 256), ("levit_128s", 224),
               ("efficientformerv2_s0", 224), ("ghostnet_100", 224),
               ("fastvit_t8", 256), ("edgenext_xx_small", 256),
               ("mixnet_s", 224), ("hrnet_w18_small", 224),
               ("rexnet_100", 224), ("mobileone_s0", 224),
               ("efficientvit_b0", 224), ("resnest14d", 224),
               ("xcit_nano_12_p16_224", 224), ("poolformer_s12", 224),
               ("repvit_m0_9", 224), ("lcnet_050", 224),
               ("tf_efficientnet_lite0", 224), ("dla34", 224),
               ("pit_ti_224", 224), ("convnextv2_atto", 224),
               ("tiny_vit_5m_224", 224), ("mobilenetv4_conv_small", 224),
               ("coat_lite_tiny", 224), ("starnet_s1", 224)]:
    arch("timm_" + _n, "timm 1.0.31 %s(pretrained=False) @%d" % (_n, _s))(
        timm_model(_n, _s))


# ---------------------------------------------------------------------------
# HF transformers from configs (random weights, nothing downloaded)
# ---------------------------------------------------------------------------
VOCAB = 8192


def tokens(g, n, s, vocab=VOCAB, low=0):
    return torch.randint(low, vocab, (n, s), generator=g)


def hf_encoder(name, cfg_fn, model_cls, seq=64, token_types=True,
               keys=("last_hidden_state",)):
    def build():
        import transformers
        torch.manual_seed(0)
        cfg = cfg_fn(transformers)
        m = getattr(transformers, model_cls)(cfg).eval()
        g = gen(name)
        ids = tokens(g, 1, seq, cfg.vocab_size, low=5)
        mask = torch.ones(1, seq, dtype=torch.int64)
        mask[0, seq - 8:] = 0  # a padded tail, as in batched serving
        feeds = [("input_ids", ids), ("attention_mask", mask)]
        if token_types:
            tt = torch.zeros(1, seq, dtype=torch.int64)
            tt[0, seq // 2:] = 1
            feeds.append(("token_type_ids", tt))
        return Outputs(m, [n for n, _ in feeds], list(keys)), feeds, {}
    return build


SMALL = dict(hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
             intermediate_size=1024, vocab_size=VOCAB,
             max_position_embeddings=128)

arch("hf_bert", "transformers 5.23 BertModel(BertConfig small)")(hf_encoder(
    "hf_bert", lambda t: t.BertConfig(**SMALL), "BertModel",
    keys=("last_hidden_state", "pooler_output")))
arch("hf_roberta", "transformers 5.23 RobertaModel(RobertaConfig small)")(
    hf_encoder("hf_roberta", lambda t: t.RobertaConfig(
        **dict(SMALL, max_position_embeddings=130, type_vocab_size=1)),
        "RobertaModel", token_types=False))
arch("hf_distilbert",
     "transformers 5.23 DistilBertModel(DistilBertConfig small)")(hf_encoder(
         "hf_distilbert", lambda t: t.DistilBertConfig(
             vocab_size=VOCAB, dim=256, n_layers=4, n_heads=4,
             hidden_dim=1024, max_position_embeddings=128),
         "DistilBertModel", token_types=False))
arch("hf_mobilebert",
     "transformers 5.23 MobileBertModel(MobileBertConfig small)")(hf_encoder(
         "hf_mobilebert", lambda t: t.MobileBertConfig(
             vocab_size=VOCAB, hidden_size=256, num_hidden_layers=4,
             num_attention_heads=4, intermediate_size=256,
             embedding_size=128, intra_bottleneck_size=64,
             max_position_embeddings=128, num_feedforward_networks=2),
         "MobileBertModel"))
arch("hf_albert", "transformers 5.23 AlbertModel(AlbertConfig small)")(
    hf_encoder("hf_albert", lambda t: t.AlbertConfig(
        **dict(SMALL, embedding_size=128)), "AlbertModel"))
arch("hf_electra", "transformers 5.23 ElectraModel(ElectraConfig small)")(
    hf_encoder("hf_electra", lambda t: t.ElectraConfig(
        **dict(SMALL, embedding_size=128)), "ElectraModel"))
arch("hf_deberta_v2",
     "transformers 5.23 DebertaV2Model(DebertaV2Config small)")(hf_encoder(
         "hf_deberta_v2", lambda t: t.DebertaV2Config(
             **dict(SMALL, relative_attention=True, position_buckets=64,
                    pos_att_type=["p2c", "c2p"], max_relative_positions=-1)),
         "DebertaV2Model", token_types=False))
arch("hf_t5_encoder", "transformers 5.23 T5EncoderModel(T5Config small)")(
    hf_encoder("hf_t5_encoder", lambda t: t.T5Config(
        vocab_size=VOCAB, d_model=256, d_kv=64, d_ff=1024, num_layers=4,
        num_heads=4, feed_forward_proj="gated-gelu"),
        "T5EncoderModel", token_types=False))


def decoder_cfg(t, kind):
    if kind == "gpt2":
        return t.GPT2Config(vocab_size=VOCAB, n_positions=256, n_embd=256,
                            n_layer=4, n_head=4)
    common = dict(vocab_size=VOCAB, hidden_size=256, intermediate_size=688,
                  num_hidden_layers=4, num_attention_heads=8,
                  num_key_value_heads=4, max_position_embeddings=256,
                  tie_word_embeddings=False)
    if kind == "llama":
        return t.LlamaConfig(**common)
    if kind == "qwen2":
        return t.Qwen2Config(**common)
    raise ValueError(kind)


def hf_decoder(name, kind, cls, with_past, cfg_fn=None, seq=32, past_len=31):
    cfg_fn = cfg_fn or decoder_cfg

    def build():
        import transformers
        torch.manual_seed(0)
        cfg = cfg_fn(transformers, kind)
        m = getattr(transformers, cls)(cfg).eval()
        g = gen(name)
        if not with_past:
            ids = tokens(g, 1, seq, cfg.vocab_size)
            mask = torch.ones(1, seq, dtype=torch.int64)
            feeds = [("input_ids", ids), ("attention_mask", mask)]

            class Prefill(nn.Module):
                def __init__(self, m):
                    super().__init__()
                    self.m = m

                def forward(self, input_ids, attention_mask):
                    return self.m(input_ids=input_ids,
                                  attention_mask=attention_mask,
                                  use_cache=False).logits
            return Prefill(m), feeds, {}
        layers = cfg.num_hidden_layers
        heads = cfg.num_attention_heads
        kvh = getattr(cfg, "num_key_value_heads", None) or heads
        hd = getattr(cfg, "head_dim", None) or cfg.hidden_size // heads
        feeds = [("input_ids", tokens(g, 1, 1, cfg.vocab_size)),
                 ("attention_mask",
                  torch.ones(1, past_len + 1, dtype=torch.int64))]
        for i in range(layers):
            feeds.append(("past_key_%d" % i,
                          torch.randn(1, kvh, past_len, hd, generator=g)))
            feeds.append(("past_value_%d" % i,
                          torch.randn(1, kvh, past_len, hd, generator=g)))
        outs = ["logits"] + sum([["present_key_%d" % i, "present_value_%d" % i]
                                 for i in range(layers)], [])
        return DecoderStep(m, layers), feeds, {"output_names": outs}
    return build


for _k, _cls in [("gpt2", "GPT2LMHeadModel"), ("llama", "LlamaForCausalLM"),
                 ("qwen2", "Qwen2ForCausalLM")]:
    arch("hf_%s_prefill" % _k,
         "transformers 5.23 %s (small config), no KV cache, 32 tokens" % _cls)(
        hf_decoder("hf_%s_prefill" % _k, _k, _cls, False))
    arch("hf_%s_decode" % _k,
         "transformers 5.23 %s (small config), one step with "
         "past_key_values (31 past tokens)" % _cls)(
        hf_decoder("hf_%s_decode" % _k, _k, _cls, True))


@arch("hf_vit", "transformers 5.23 ViTForImageClassification (hidden 192, "
      "4 layers, 224/16)")
def hf_vit():
    import transformers
    torch.manual_seed(0)
    cfg = transformers.ViTConfig(hidden_size=192, num_hidden_layers=4,
                                 num_attention_heads=3, intermediate_size=768,
                                 image_size=224, patch_size=16, num_labels=100)
    m = transformers.ViTForImageClassification(cfg).eval()
    g = gen("hf_vit")
    return (Outputs(m, ["pixel_values"], ["logits"]),
            [("pixel_values", image(g))], {})


@arch("hf_whisper_encoder", "transformers 5.23 WhisperModel encoder (d 256, "
      "4 layers, 80 mels x 500 frames)")
def hf_whisper():
    import transformers
    torch.manual_seed(0)
    cfg = transformers.WhisperConfig(
        vocab_size=VOCAB, d_model=256, encoder_layers=4, decoder_layers=1,
        encoder_attention_heads=4, decoder_attention_heads=4,
        encoder_ffn_dim=1024, decoder_ffn_dim=1024, num_mel_bins=80,
        max_source_positions=250, max_target_positions=64, pad_token_id=0,
        bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    enc = transformers.WhisperModel(cfg).get_encoder().eval()
    g = gen("hf_whisper_encoder")
    feats = torch.randn(1, 80, 500, generator=g) * 0.5
    return Outputs(enc, ["input_features"], ["last_hidden_state"]), \
        [("input_features", feats)], {}


@arch("hf_wav2vec2", "transformers 5.23 Wav2Vec2Model (hidden 256, 4 layers, "
      "1 s of 16 kHz audio)")
def hf_wav2vec2():
    import transformers
    torch.manual_seed(0)
    cfg = transformers.Wav2Vec2Config(
        hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
        intermediate_size=1024, conv_dim=(128,) * 7,
        num_conv_pos_embeddings=64, num_conv_pos_embedding_groups=8,
        vocab_size=32)
    m = transformers.Wav2Vec2Model(cfg).eval()
    g = gen("hf_wav2vec2")
    audio = torch.randn(1, 16000, generator=g) * 0.1
    return Outputs(m, ["input_values"], ["last_hidden_state"]), \
        [("input_values", audio)], {}


@arch("hf_bart", "transformers 5.23 BartModel (d 256, 2+2 layers), "
      "encoder-decoder without cache")
def hf_bart():
    import transformers
    torch.manual_seed(0)
    cfg = transformers.BartConfig(
        vocab_size=VOCAB, d_model=256, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4,
        encoder_ffn_dim=1024, decoder_ffn_dim=1024,
        max_position_embeddings=128)
    m = transformers.BartModel(cfg).eval()
    g = gen("hf_bart")
    feeds = [("input_ids", tokens(g, 1, 48, VOCAB, low=5)),
             ("attention_mask", torch.ones(1, 48, dtype=torch.int64)),
             ("decoder_input_ids", tokens(g, 1, 16, VOCAB, low=5))]
    return Outputs(m, [n for n, _ in feeds], ["last_hidden_state"]), feeds, {}


# ---------------------------------------------------------------------------
# Recurrent models
# ---------------------------------------------------------------------------

class RNNTagger(nn.Module):
    def __init__(self, cell, vocab=5000, emb=128, hidden=256, layers=1,
                 bidirectional=False, tags=20):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = getattr(nn, cell)(emb, hidden, num_layers=layers,
                                     batch_first=True,
                                     bidirectional=bidirectional)
        self.out = nn.Linear(hidden * (2 if bidirectional else 1), tags)

    def forward(self, ids):
        h, _ = self.rnn(self.emb(ids))
        return F.log_softmax(self.out(h), dim=-1)


def tagger(name, cell, **kw):
    def build():
        torch.manual_seed(0)
        m = RNNTagger(cell, **kw).eval()
        return m, [("tokens", tokens(gen(name), 1, 64, 5000))], {}
    return build


arch("rnn_lstm_tagger", "ours: Embedding + LSTM(256) + Linear, 64 tokens")(
    tagger("rnn_lstm_tagger", "LSTM"))
arch("rnn_gru_tagger", "ours: Embedding + 2-layer GRU(256) + Linear")(
    tagger("rnn_gru_tagger", "GRU", layers=2))
arch("rnn_bilstm_tagger",
     "ours: Embedding + 2-layer bidirectional LSTM(128) + Linear")(
    tagger("rnn_bilstm_tagger", "LSTM", hidden=128, layers=2,
           bidirectional=True))


class CRNN(nn.Module):
    """CNN feature extractor + BiLSTM + CTC head (log-probs over 96 symbols
    and the blank), as in text-line recognisers."""

    def __init__(self, classes=97):
        super().__init__()

        def block(i, o, pool):
            return [nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o),
                    nn.ReLU(inplace=True)] + ([nn.MaxPool2d(pool)] if pool
                                               else [])
        self.cnn = nn.Sequential(*block(1, 32, 2), *block(32, 64, 2),
                                 *block(64, 128, None), *block(128, 128, (2, 1)),
                                 *block(128, 256, None),
                                 *block(256, 256, (2, 1)),
                                 nn.Conv2d(256, 256, (2, 1)), nn.ReLU())
        self.rnn = nn.LSTM(256, 128, num_layers=2, bidirectional=True)
        self.fc = nn.Linear(256, classes)

    def forward(self, x):
        f = self.cnn(x)                   # [B, 256, 1, W/4]
        f = f.squeeze(2).permute(2, 0, 1)  # [T, B, 256]
        h, _ = self.rnn(f)
        return F.log_softmax(self.fc(h), dim=2)


@arch("rnn_crnn_ctc", "ours: CRNN text recogniser (CNN + BiLSTM + CTC "
      "head), 1x1x32x128 line image")
def crnn():
    torch.manual_seed(0)
    m = CRNN()
    g = gen("crnn")
    calibrate_bn(m, lambda: (torch.rand(2, 1, 32, 128, generator=g),))
    return m, [("image", torch.rand(1, 1, 32, 128, generator=g))], {}


class Seq2Seq(nn.Module):
    def __init__(self, vocab=4000, d=128):
        super().__init__()
        self.src = nn.Embedding(vocab, d)
        self.tgt = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, 64, d) * 0.02)
        self.t = nn.Transformer(d, 4, 2, 2, 512, dropout=0.0,
                                batch_first=True)
        self.out = nn.Linear(d, vocab)

    def forward(self, src, tgt):
        s = self.src(src) + self.pos[:, :src.shape[1]]
        t = self.tgt(tgt) + self.pos[:, :tgt.shape[1]]
        mask = torch.triu(torch.full((tgt.shape[1], tgt.shape[1]),
                                     float("-inf")), diagonal=1)
        return self.out(self.t(s, t, tgt_mask=mask))


@arch("seq_transformer_s2s", "ours: nn.Transformer encoder-decoder (d 128, "
      "2+2 layers), src 32 / tgt 16 tokens")
def seq2seq():
    torch.manual_seed(0)
    g = gen("s2s")
    return Seq2Seq().eval(), [("src", tokens(g, 1, 32, 4000)),
                              ("tgt", tokens(g, 1, 16, 4000))], {}


class TCN(nn.Module):
    """Dilated causal 1-D convolutions with residuals (keyword spotting)."""

    def __init__(self, ch=64, levels=6, classes=12):
        super().__init__()
        self.inp = nn.Conv1d(40, ch, 1)
        self.blocks = nn.ModuleList()
        for i in range(levels):
            d = 2 ** i
            self.blocks.append(nn.Sequential(
                nn.ConstantPad1d((2 * d, 0), 0.0),
                nn.Conv1d(ch, ch, 3, dilation=d), nn.BatchNorm1d(ch),
                nn.GELU()))
        self.head = nn.Linear(ch, classes)

    def forward(self, x):
        h = self.inp(x)
        for b in self.blocks:
            h = h + b(h)
        return self.head(h.mean(dim=2))


# nn.MultiheadAttention's fused fast path (eval, no grad) has no ONNX export
# in the legacy exporter; users then turn it off. Both forms are in the set.
arch("seq_transformer_s2s_nofastpath", "ours: the same nn.Transformer, "
     "exported with torch.backends.mha fast path off", nofastpath=True)(seq2seq)
arch("tv_vit_b_16_nofastpath", "torchvision 0.29.2 vit_b_16(weights=None) "
     "@112, exported with the MHA fast path off", nofastpath=True)(
    tv("vit_b_16", 112, image_size=112))


@arch("seq_tcn_kws", "ours: dilated causal TCN over 40 MFCC x 100 frames")
def tcn():
    torch.manual_seed(0)
    m = TCN()
    g = gen("tcn")
    calibrate_bn(m, lambda: (torch.randn(2, 40, 100, generator=g),))
    return m, [("mfcc", torch.randn(1, 40, 100, generator=g))], {}


# ---------------------------------------------------------------------------
# Detectors and segmenters
# ---------------------------------------------------------------------------

class ConvBnAct(nn.Sequential):
    def __init__(self, i, o, k=3, s=1, act=nn.SiLU):
        super().__init__(nn.Conv2d(i, o, k, s, k // 2, bias=False),
                         nn.BatchNorm2d(o), act())


class C2f(nn.Module):
    def __init__(self, i, o, n=1):
        super().__init__()
        self.c = o // 2
        self.cv1 = ConvBnAct(i, 2 * self.c, 1)
        self.m = nn.ModuleList(nn.Sequential(ConvBnAct(self.c, self.c),
                                             ConvBnAct(self.c, self.c))
                               for _ in range(n))
        self.cv2 = ConvBnAct((2 + n) * self.c, o, 1)

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        for m in self.m:
            y.append(y[-1] + m(y[-1]))
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.cv1 = ConvBnAct(c, c // 2, 1)
        self.cv2 = ConvBnAct(c * 2, c, 1)
        self.m = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat([x, y1, y2, self.m(y2)], 1))


class YOLOish(nn.Module):
    """YOLOv8-style: C2f backbone, SPPF, PAN neck with nearest upsampling,
    anchor-free heads with DFL box decoding (softmax over 16 bins) and a
    grid decode into xywh + class scores: [1, 4 + classes, anchors]."""

    def __init__(self, classes=20, w=(16, 32, 64, 128, 256), reg=16):
        super().__init__()
        self.reg, self.nc = reg, classes
        self.stem = ConvBnAct(3, w[0], 3, 2)
        self.s1 = nn.Sequential(ConvBnAct(w[0], w[1], 3, 2), C2f(w[1], w[1]))
        self.s2 = nn.Sequential(ConvBnAct(w[1], w[2], 3, 2), C2f(w[2], w[2], 2))
        self.s3 = nn.Sequential(ConvBnAct(w[2], w[3], 3, 2), C2f(w[3], w[3], 2))
        self.s4 = nn.Sequential(ConvBnAct(w[3], w[4], 3, 2), C2f(w[4], w[4]),
                                SPPF(w[4]))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.n1 = C2f(w[4] + w[3], w[3])
        self.n2 = C2f(w[3] + w[2], w[2])
        self.d1 = ConvBnAct(w[2], w[2], 3, 2)
        self.n3 = C2f(w[2] + w[3], w[3])
        self.d2 = ConvBnAct(w[3], w[3], 3, 2)
        self.n4 = C2f(w[3] + w[4], w[4])
        self.box = nn.ModuleList(nn.Sequential(ConvBnAct(c, 64),
                                               nn.Conv2d(64, 4 * reg, 1))
                                 for c in (w[2], w[3], w[4]))
        self.cls = nn.ModuleList(nn.Sequential(ConvBnAct(c, 64),
                                               nn.Conv2d(64, classes, 1))
                                 for c in (w[2], w[3], w[4]))
        self.register_buffer("proj", torch.arange(reg, dtype=torch.float32))

    def forward(self, x):
        x = self.s1(self.stem(x))
        p3 = self.s2(x)
        p4 = self.s3(p3)
        p5 = self.s4(p4)
        h4 = self.n1(torch.cat([self.up(p5), p4], 1))
        o3 = self.n2(torch.cat([self.up(h4), p3], 1))
        o4 = self.n3(torch.cat([self.d1(o3), h4], 1))
        o5 = self.n4(torch.cat([self.d2(o4), p5], 1))
        boxes, scores, anchors, strides = [], [], [], []
        for i, (f, s) in enumerate(zip((o3, o4, o5), (8, 16, 32))):
            b, _, h, w = f.shape
            boxes.append(self.box[i](f).view(b, 4 * self.reg, -1))
            scores.append(self.cls[i](f).view(b, self.nc, -1))
            sy, sx = torch.meshgrid(torch.arange(h, dtype=torch.float32) + 0.5,
                                    torch.arange(w, dtype=torch.float32) + 0.5,
                                    indexing="ij")
            anchors.append(torch.stack([sx, sy], 0).view(2, -1))
            strides.append(torch.full((1, h * w), float(s)))
        box = torch.cat(boxes, 2)
        a = torch.cat(anchors, 1).unsqueeze(0)
        st = torch.cat(strides, 1).unsqueeze(0)
        b, _, n = box.shape
        dist = box.view(b, 4, self.reg, n).softmax(2)
        dist = (dist * self.proj.view(1, 1, -1, 1)).sum(2)
        lt, rb = dist.chunk(2, 1)
        xy = (a + (rb - lt) / 2) * st
        wh = (lt + rb) * st
        return torch.cat([xy, wh, torch.cat(scores, 2).sigmoid()], 1)


@arch("det_yolo_v8ish", "ours: YOLOv8-style detector (C2f, SPPF, PAN, DFL, "
      "grid decode), 1x3x320x320")
def yolo():
    torch.manual_seed(0)
    m = YOLOish()
    g = gen("yolo")
    calibrate_bn(m, lambda: (torch.rand(2, 3, 320, 320, generator=g),))
    return m, [("images", torch.rand(1, 3, 320, 320, generator=g))], {}


class UNet(nn.Module):
    def __init__(self, c=(32, 64, 128, 256), classes=2, bilinear=False):
        super().__init__()

        def dbl(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False),
                                 nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                                 nn.Conv2d(o, o, 3, padding=1, bias=False),
                                 nn.BatchNorm2d(o), nn.ReLU(inplace=True))
        self.bilinear = bilinear
        self.inc = dbl(3, c[0])
        self.downs = nn.ModuleList(dbl(c[i], c[i + 1]) for i in range(3))
        self.ups = nn.ModuleList()
        self.convs = nn.ModuleList()
        for i in range(3, 0, -1):
            if bilinear:
                self.ups.append(nn.Conv2d(c[i], c[i - 1], 1))
            else:
                self.ups.append(nn.ConvTranspose2d(c[i], c[i - 1], 2, 2))
            self.convs.append(dbl(2 * c[i - 1], c[i - 1]))
        self.out = nn.Conv2d(c[0], classes, 1)

    def forward(self, x):
        skips = [self.inc(x)]
        for d in self.downs:
            skips.append(d(F.max_pool2d(skips[-1], 2)))
        h = skips.pop()
        for up, conv in zip(self.ups, self.convs):
            if self.bilinear:
                h = up(F.interpolate(h, scale_factor=2.0, mode="bilinear",
                                     align_corners=False))
            else:
                h = up(h)
            h = conv(torch.cat([skips.pop(), h], 1))
        return self.out(h)


for _bil in (False, True):
    _name = "seg_unet_bilinear" if _bil else "seg_unet"

    def _unet(bil=_bil, name=_name):
        torch.manual_seed(0)
        m = UNet(bilinear=bil)
        g = gen(name)
        calibrate_bn(m, lambda: (image(g, 2, 3, 160, 160),))
        return m, [("image", image(g, 1, 3, 160, 160))], {}
    arch(_name, "ours: U-Net, 4 levels, %s, 1x3x160x160" %
         ("bilinear Resize" if _bil else "ConvTranspose"))(_unet)


class DBNet(nn.Module):
    """DBNet-style text detector: ResNet-18 backbone, FPN (nearest
    upsampling and adds), the four levels upsampled to 1/4 and concatenated,
    probability and threshold heads (ConvTranspose up to full size) and the
    differentiable binarisation 1 / (1 + exp(-k (P - T)))."""

    def __init__(self, inner=64):
        super().__init__()
        import torchvision.models as tvm
        r = tvm.resnet18(weights=None)
        self.stem = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool)
        self.layers = nn.ModuleList([r.layer1, r.layer2, r.layer3, r.layer4])
        self.lat = nn.ModuleList(nn.Conv2d(c, inner, 1, bias=False)
                                 for c in (64, 128, 256, 512))
        self.smooth = nn.ModuleList(nn.Conv2d(inner, inner // 4, 3, padding=1,
                                              bias=False) for _ in range(4))

        def head():
            return nn.Sequential(
                nn.Conv2d(inner, inner // 4, 3, padding=1, bias=False),
                nn.BatchNorm2d(inner // 4), nn.ReLU(inplace=True),
                nn.ConvTranspose2d(inner // 4, inner // 4, 2, 2),
                nn.BatchNorm2d(inner // 4), nn.ReLU(inplace=True),
                nn.ConvTranspose2d(inner // 4, 1, 2, 2), nn.Sigmoid())
        self.prob, self.thresh = head(), head()

    def forward(self, x):
        feats = []
        h = self.stem(x)
        for layer in self.layers:
            h = layer(h)
            feats.append(h)
        lat = [l(f) for l, f in zip(self.lat, feats)]
        for i in range(3, 0, -1):
            lat[i - 1] = lat[i - 1] + F.interpolate(lat[i], scale_factor=2.0,
                                                    mode="nearest")
        outs = [F.interpolate(s(l), scale_factor=float(2 ** i),
                              mode="nearest") if i else s(l)
                for i, (s, l) in enumerate(zip(self.smooth, lat))]
        fuse = torch.cat(outs[::-1], 1)
        p, t = self.prob(fuse), self.thresh(fuse)
        return p, torch.reciprocal(1 + torch.exp(-50 * (p - t)))


@arch("det_dbnet_r18", "ours: DBNet-style text detector (ResNet-18, FPN, "
      "upsampling), 1x3x320x320")
def dbnet():
    torch.manual_seed(0)
    m = DBNet()
    g = gen("dbnet")
    calibrate_bn(m, lambda: (image(g, 2, 3, 320, 320),))
    return m, [("image", image(g, 1, 3, 320, 320))], {}


# ---------------------------------------------------------------------------
# Wave 2: more of what users export today (added 2026-12-03 to widen the set
# beyond the architectures the first wave was tuned on)
# ---------------------------------------------------------------------------

def wave2_decoder_cfg(t, kind):
    """Small configs of current HF decoder families (GQA where the family
    has it); sizes chosen so that export and check take seconds."""
    h, L, heads, kv, ff = 256, 2, 8, 4, 512
    base = dict(vocab_size=VOCAB, hidden_size=h, num_hidden_layers=L,
                num_attention_heads=heads, intermediate_size=ff,
                max_position_embeddings=256)
    gqa = dict(base, num_key_value_heads=kv)
    if kind == "mistral":
        return t.MistralConfig(**gqa, sliding_window=None)
    if kind == "gemma":
        return t.GemmaConfig(**gqa, head_dim=32)
    if kind == "gemma2":
        return t.Gemma2Config(**gqa, head_dim=32, sliding_window=16,
                              query_pre_attn_scalar=32)
    if kind == "gemma3":
        return t.Gemma3TextConfig(**gqa, head_dim=32, sliding_window=16)
    if kind == "phi":
        return t.PhiConfig(**base)
    if kind == "phi3":
        return t.Phi3Config(**gqa, pad_token_id=0)
    if kind == "qwen3":
        return t.Qwen3Config(**gqa, head_dim=32)
    if kind == "olmo":
        return t.OlmoConfig(**base)
    if kind == "granite":
        return t.GraniteConfig(**gqa)
    if kind == "stablelm":
        return t.StableLmConfig(**gqa)
    if kind == "smollm3":
        return t.SmolLM3Config(**gqa, pad_token_id=0)
    if kind == "gpt_neox":
        return t.GPTNeoXConfig(**base)
    if kind == "gptj":
        return t.GPTJConfig(vocab_size=VOCAB, n_positions=256, n_embd=h,
                            n_layer=L, n_head=heads, rotary_dim=16)
    if kind == "opt":
        return t.OPTConfig(vocab_size=VOCAB, hidden_size=h,
                           num_hidden_layers=L, num_attention_heads=heads,
                           ffn_dim=ff, max_position_embeddings=256,
                           word_embed_proj_dim=h)
    if kind == "bloom":
        return t.BloomConfig(vocab_size=VOCAB, hidden_size=h, n_layer=L,
                             n_head=heads)
    if kind == "falcon":
        return t.FalconConfig(vocab_size=VOCAB, hidden_size=h,
                              num_hidden_layers=L, num_attention_heads=heads,
                              new_decoder_architecture=True,
                              num_kv_heads=kv)
    raise ValueError(kind)


def wave2_decoder(name, kind, cls, with_past):
    return hf_decoder(name, kind, cls, with_past, cfg_fn=wave2_decoder_cfg,
                      seq=24, past_len=23)


for _k, _cls, _decode in [
        ("mistral", "MistralForCausalLM", True),
        ("gemma", "GemmaForCausalLM", False),
        ("gemma2", "Gemma2ForCausalLM", False),
        ("gemma3", "Gemma3ForCausalLM", False),
        ("phi", "PhiForCausalLM", False),
        ("phi3", "Phi3ForCausalLM", True),
        ("qwen3", "Qwen3ForCausalLM", True),
        ("olmo", "OlmoForCausalLM", False),
        ("granite", "GraniteForCausalLM", False),
        ("stablelm", "StableLmForCausalLM", False),
        ("smollm3", "SmolLM3ForCausalLM", False),
        ("gpt_neox", "GPTNeoXForCausalLM", True),
        ("gptj", "GPTJForCausalLM", False),
        ("opt", "OPTForCausalLM", True),
        ("bloom", "BloomForCausalLM", False),
        ("falcon", "FalconForCausalLM", False)]:
    arch("w2_hf_%s_prefill" % _k,
         "transformers 5.23 %s (small config), no KV cache, 24 tokens" % _cls)(
        wave2_decoder("w2_hf_%s_prefill" % _k, _k, _cls, False))
    if _decode:
        arch("w2_hf_%s_decode" % _k,
             "transformers 5.23 %s (small config), one step with "
             "past_key_values (23 past tokens)" % _cls)(
            wave2_decoder("w2_hf_%s_decode" % _k, _k, _cls, True))

arch("w2_hf_xlm_roberta",
     "transformers 5.23 XLMRobertaModel(XLMRobertaConfig small)")(hf_encoder(
         "w2_hf_xlm_roberta", lambda t: t.XLMRobertaConfig(
             **dict(SMALL, max_position_embeddings=130, type_vocab_size=1)),
         "XLMRobertaModel", token_types=False))
arch("w2_hf_modernbert",
     "transformers 5.23 ModernBertModel(ModernBertConfig small)")(hf_encoder(
         "w2_hf_modernbert", lambda t: t.ModernBertConfig(
             vocab_size=VOCAB, hidden_size=256, num_hidden_layers=4,
             num_attention_heads=4, intermediate_size=512,
             max_position_embeddings=128, local_attention=16,
             global_attn_every_n_layers=2, pad_token_id=0),
         "ModernBertModel", token_types=False))
arch("w2_hf_convbert",
     "transformers 5.23 ConvBertModel(ConvBertConfig small)")(hf_encoder(
         "w2_hf_convbert", lambda t: t.ConvBertConfig(
             **dict(SMALL, embedding_size=128)), "ConvBertModel"))


def wave2_hf_vision(name, cfg_fn, model_cls, size=224, key="last_hidden_state",
                    channels=3):
    def build():
        import transformers
        torch.manual_seed(0)
        cfg = cfg_fn(transformers)
        m = getattr(transformers, model_cls)(cfg).eval()
        g = gen(name)
        calibrate_bn(m, lambda: (image(g, 2, channels, size, size),))
        return (Outputs(m, ["pixel_values"], [key]),
                [("pixel_values", image(g, 1, channels, size, size))], {})
    return build


_VIT = dict(hidden_size=192, num_hidden_layers=4, num_attention_heads=3,
            intermediate_size=768)
for _n, _cls, _cfg, _size, _key in [
        ("convnext", "ConvNextModel", lambda t: t.ConvNextConfig(
            hidden_sizes=[48, 96, 192, 384], depths=[2, 2, 4, 2]), 224,
         "pooler_output"),
        ("swin", "SwinModel", lambda t: t.SwinConfig(
            embed_dim=48, depths=[2, 2, 2, 2], num_heads=[3, 6, 12, 24]), 224,
         "pooler_output"),
        ("swinv2", "Swinv2Model", lambda t: t.Swinv2Config(
            embed_dim=48, depths=[2, 2, 2, 2], num_heads=[3, 6, 12, 24]), 256,
         "pooler_output"),
        ("segformer", "SegformerForSemanticSegmentation",
         lambda t: t.SegformerConfig(num_labels=19), 256, "logits"),
        ("dinov2", "Dinov2Model", lambda t: t.Dinov2Config(
            **_VIT, image_size=518, patch_size=14), 224, "pooler_output"),
        ("deit", "DeiTModel", lambda t: t.DeiTConfig(**_VIT), 224,
         "pooler_output"),
        ("beit", "BeitModel", lambda t: t.BeitConfig(
            **_VIT, use_relative_position_bias=True), 224, "pooler_output"),
        ("mobilevit", "MobileViTModel", lambda t: t.MobileViTConfig(
            image_size=256), 256, "pooler_output"),
        ("clip_vision", "CLIPVisionModel", lambda t: t.CLIPVisionConfig(
            **_VIT, image_size=224, patch_size=32), 224, "pooler_output"),
        ("siglip_vision", "SiglipVisionModel", lambda t: t.SiglipVisionConfig(
            **_VIT, image_size=224, patch_size=16), 224, "pooler_output"),
        ("resnet", "ResNetModel", lambda t: t.ResNetConfig(
            depths=[2, 2, 2, 2], layer_type="basic",
            hidden_sizes=[64, 128, 256, 512]), 224, "pooler_output"),
        ("dpt", "DPTForDepthEstimation", lambda t: t.DPTConfig(
            **_VIT, image_size=224, patch_size=16,
            backbone_out_indices=[0, 1, 2, 3], neck_hidden_sizes=[48, 96, 192,
                                                                  384],
            fusion_hidden_size=64), 224, "predicted_depth")]:
    arch("w2_hf_" + _n, "transformers 5.23 %s (small config) @%d" % (_cls, _size))(
        wave2_hf_vision("w2_hf_" + _n, _cfg, _cls, _size, _key))


@arch("w2_hf_clip_text", "transformers 5.23 CLIPTextModel (small config)")
def w2_clip_text():
    import transformers
    torch.manual_seed(0)
    cfg = transformers.CLIPTextConfig(vocab_size=VOCAB, hidden_size=256,
                                      intermediate_size=1024,
                                      num_hidden_layers=4,
                                      num_attention_heads=4,
                                      max_position_embeddings=77)
    m = transformers.CLIPTextModel(cfg).eval()
    g = gen("w2_hf_clip_text")
    feeds = [("input_ids", tokens(g, 1, 77, VOCAB, low=5)),
             ("attention_mask", torch.ones(1, 77, dtype=torch.int64))]
    return Outputs(m, [n for n, _ in feeds], ["pooler_output"]), feeds, {}


def wave2_audio(name, cls, cfg_fn):
    def build():
        import transformers
        torch.manual_seed(0)
        m = getattr(transformers, cls)(cfg_fn(transformers)).eval()
        g = gen(name)
        audio = torch.randn(1, 16000, generator=g) * 0.1
        return Outputs(m, ["input_values"], ["last_hidden_state"]), \
            [("input_values", audio)], {}
    return build


_W2V = dict(hidden_size=256, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=1024, conv_dim=(128,) * 7,
            num_conv_pos_embeddings=64, num_conv_pos_embedding_groups=8,
            vocab_size=32)
arch("w2_hf_hubert", "transformers 5.23 HubertModel (small), 1 s audio")(
    wave2_audio("w2_hf_hubert", "HubertModel", lambda t: t.HubertConfig(**_W2V)))
arch("w2_hf_wavlm", "transformers 5.23 WavLMModel (small), 1 s audio")(
    wave2_audio("w2_hf_wavlm", "WavLMModel", lambda t: t.WavLMConfig(**_W2V)))


@arch("w2_hf_ast", "transformers 5.23 ASTModel (small), 1024 frames x 128 mels")
def w2_ast():
    import transformers
    torch.manual_seed(0)
    cfg = transformers.ASTConfig(hidden_size=192, num_hidden_layers=2,
                                 num_attention_heads=3, intermediate_size=768,
                                 max_length=256, num_mel_bins=128)
    m = transformers.ASTModel(cfg).eval()
    g = gen("w2_hf_ast")
    x = torch.randn(1, 256, 128, generator=g) * 0.5
    return Outputs(m, ["input_values"], ["pooler_output"]), \
        [("input_values", x)], {}


@arch("w2_hf_t5_full", "transformers 5.23 T5Model (small), encoder-decoder "
      "without cache")
def w2_t5_full():
    import transformers
    torch.manual_seed(0)
    cfg = transformers.T5Config(vocab_size=VOCAB, d_model=256, d_kv=64,
                                d_ff=1024, num_layers=2, num_decoder_layers=2,
                                num_heads=4, decoder_start_token_id=0)
    m = transformers.T5Model(cfg).eval()
    g = gen("w2_hf_t5_full")
    feeds = [("input_ids", tokens(g, 1, 32, VOCAB, low=5)),
             ("attention_mask", torch.ones(1, 32, dtype=torch.int64)),
             ("decoder_input_ids", tokens(g, 1, 8, VOCAB, low=5))]
    return Outputs(m, [n for n, _ in feeds], ["last_hidden_state"]), feeds, {}


@arch("w2_hf_marian", "transformers 5.23 MarianMTModel (small), "
      "encoder-decoder without cache")
def w2_marian():
    import transformers
    torch.manual_seed(0)
    cfg = transformers.MarianConfig(
        vocab_size=VOCAB, d_model=256, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4,
        encoder_ffn_dim=512, decoder_ffn_dim=512, max_position_embeddings=128,
        pad_token_id=VOCAB - 1, decoder_start_token_id=VOCAB - 1)
    m = transformers.MarianMTModel(cfg).eval()
    g = gen("w2_hf_marian")
    feeds = [("input_ids", tokens(g, 1, 32, VOCAB - 1, low=5)),
             ("attention_mask", torch.ones(1, 32, dtype=torch.int64)),
             ("decoder_input_ids", tokens(g, 1, 8, VOCAB - 1, low=5))]
    return Outputs(m, [n for n, _ in feeds], ["logits"]), feeds, {}


for _n, _s, _kw in [
        ("vgg11_bn", 128, {}), ("alexnet", 224, {}),
        ("efficientnet_v2_s", 160, {}), ("regnet_x_400mf", 224, {}),
        ("shufflenet_v2_x0_5", 224, {}), ("resnet34", 224, {}),
        ("wide_resnet50_2", 128, {}), ("swin_v2_t", 256, {}),
        ("efficientnet_b3", 160, {}), ("mnasnet1_0", 224, {})]:
    arch("w2_tv_" + _n, "torchvision 0.29.2 %s(weights=None) @%d" % (_n, _s))(
        tv(_n, _s, **_kw))


@arch("w2_tv_r3d_18", "torchvision 0.29.2 video r3d_18(weights=None), "
      "8 frames @112")
def w2_r3d():
    import torchvision.models.video as vm
    torch.manual_seed(0)
    m = vm.r3d_18(weights=None)
    g = gen("w2_tv_r3d_18")
    calibrate_bn(m, lambda: (torch.randn(2, 3, 8, 112, 112, generator=g),))
    return m, [("input", torch.randn(1, 3, 8, 112, 112, generator=g))], {}


arch("w2_tv_fcn_resnet50",
     "torchvision 0.29.2 fcn_resnet50(weights=None) @160")(
    tv_seg("fcn_resnet50", 160))

for _n, _s in [("cspdarknet53", 160), ("resnet18d", 224), ("nfnet_l0", 160),
               ("eva02_tiny_patch14_224", 224), ("deit_tiny_patch16_224", 224),
               ("gcvit_xxtiny", 224), ("mvitv2_tiny", 224),
               ("inception_next_tiny", 160), ("ese_vovnet19b_dw", 224),
               ("sequencer2d_s", 224), ("resmlp_12_224", 224),
               ("mixer_s16_224", 224), ("mobilevitv2_050", 256),
               ("ghostnetv2_100", 224), ("hgnetv2_b0", 224),
               ("efficientnet_b0", 224), ("regnety_002", 224),
               ("tinynet_a", 192), ("visformer_tiny", 224),
               ("crossvit_tiny_240", 240), ("vit_small_patch16_224", 224),
               ("fbnetv3_b", 224), ("efficientformer_l1", 224)]:
    arch("w2_timm_" + _n, "timm 1.0.31 %s(pretrained=False) @%d" % (_n, _s))(
        timm_model(_n, _s))


# ---------------------------------------------------------------------------
# Third wave (w3_*): architectures added to widen the set again after the
# first two were tuned on -- attention hybrids, rarer conv blocks (selective
# kernels, split attention, lambda and halo layers, weight standardization,
# fold/unfold), video convs, FFT token mixing and more HF families.
# ---------------------------------------------------------------------------
for _n, _s in [("cait_xxs24_224", 224), ("coatnet_nano_rw_224", 224),
               ("maxvit_nano_rw_256", 256), ("efficientvit_m0", 224),
               ("levit_conv_128s", 224), ("semnasnet_100", 224),
               ("spnasnet_100", 224), ("dpn48b", 224),
               ("res2net50_14w_8s", 160), ("selecsls42b", 224),
               ("xception41", 160), ("pvt_v2_b0", 224),
               ("convit_tiny", 224), ("resnetv2_50x1_bit", 160),
               ("nf_resnet26", 160), ("lambda_resnet26t", 256),
               ("halonet26t", 256), ("botnet26t_256", 256),
               ("volo_d1_224", 224), ("poolformerv2_s12", 224),
               ("mambaout_femto", 224), ("gernet_s", 224),
               ("skresnet18", 224), ("cs3darknet_s", 224),
               ("ecaresnet26t", 224), ("efficientnet_lite0", 224),
               ("mobilenetv2_050", 224), ("hardcorenas_a", 224),
               ("vit_tiny_r_s16_p8_224", 224), ("regnetz_b16", 224),
               ("repghostnet_050", 224), ("fastvit_mci0", 256)]:
    arch("w3_timm_" + _n, "timm 1.0.31 %s(pretrained=False) @%d" % (_n, _s))(
        timm_model(_n, _s))

for _n, _s in [("regnet_y_800mf", 224), ("efficientnet_b1", 224),
               ("shufflenet_v2_x1_5", 224)]:
    arch("w3_tv_" + _n, "torchvision 0.29.2 %s(weights=None) @%d" % (_n, _s))(
        tv(_n, _s))

arch("w3_tv_deeplabv3_resnet50",
     "torchvision 0.29.2 deeplabv3_resnet50(weights=None) @160")(
    tv_seg("deeplabv3_resnet50", 160))


def w3_video(name):
    def build():
        import torchvision.models.video as vm
        torch.manual_seed(0)
        m = getattr(vm, name)(weights=None)
        g = gen("w3_tv_" + name)
        calibrate_bn(m, lambda: (torch.randn(2, 3, 8, 112, 112, generator=g),))
        return m, [("input", torch.randn(1, 3, 8, 112, 112, generator=g))], {}
    return build


for _n in ["mc3_18", "r2plus1d_18"]:
    arch("w3_tv_" + _n, "torchvision 0.29.2 video %s(weights=None), "
         "8 frames @112" % _n)(w3_video(_n))


@arch("w3_tv_raft_small", "torchvision 0.29.2 raft_small(weights=None), "
      "two 128x128 frames, 4 flow updates")
def w3_raft():
    import torchvision.models.optical_flow as of
    torch.manual_seed(0)
    m = of.raft_small(weights=None)

    class Raft(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, a, b):
            return self.m(a, b, num_flow_updates=4)[-1]
    g = gen("w3_tv_raft_small")
    return (Raft(m).eval(), [("image1", image(g, 1, 3, 128, 128)),
                             ("image2", image(g, 1, 3, 128, 128))], {})


arch("w3_hf_fnet", "transformers 5.23 FNetModel(FNetConfig small): "
     "Fourier token mixing")(hf_encoder(
         "w3_hf_fnet", lambda t: t.FNetConfig(
             vocab_size=VOCAB, hidden_size=256, num_hidden_layers=4,
             intermediate_size=1024, max_position_embeddings=128,
             use_tpu_fourier_optimizations=False),
         "FNetModel", keys=("last_hidden_state",)))
arch("w3_hf_squeezebert",
     "transformers 5.23 SqueezeBertModel(SqueezeBertConfig small)")(hf_encoder(
         "w3_hf_squeezebert", lambda t: t.SqueezeBertConfig(
             **dict(SMALL, embedding_size=256)), "SqueezeBertModel"))
arch("w3_hf_funnel", "transformers 5.23 FunnelBaseModel(FunnelConfig small)")(
    hf_encoder("w3_hf_funnel", lambda t: t.FunnelConfig(
        vocab_size=VOCAB, block_sizes=[1, 1, 1], d_model=256, n_head=4,
        d_head=64, d_inner=1024), "FunnelBaseModel"))
arch("w3_hf_mpnet", "transformers 5.23 MPNetModel(MPNetConfig small)")(
    hf_encoder("w3_hf_mpnet", lambda t: t.MPNetConfig(
        **dict(SMALL, max_position_embeddings=130)), "MPNetModel",
        token_types=False))
arch("w3_hf_megatron_bert",
     "transformers 5.23 MegatronBertModel(MegatronBertConfig small)")(
    hf_encoder("w3_hf_megatron_bert", lambda t: t.MegatronBertConfig(**SMALL),
               "MegatronBertModel"))

for _n, _cls, _cfg, _size, _key in [
        ("yolos", "YolosModel", lambda t: t.YolosConfig(
            **_VIT, image_size=[224, 224], num_detection_tokens=10), 224,
         "last_hidden_state"),
        ("convnextv2", "ConvNextV2Model", lambda t: t.ConvNextV2Config(
            hidden_sizes=[40, 80, 160, 320], depths=[2, 2, 6, 2]), 224,
         "pooler_output"),
        ("poolformer", "PoolFormerModel", lambda t: t.PoolFormerConfig(
            hidden_sizes=[64, 128, 320, 512], depths=[2, 2, 6, 2]), 224,
         "last_hidden_state"),
        ("cvt", "CvtModel", lambda t: t.CvtConfig(), 224, "last_hidden_state"),
        ("levit", "LevitModel", lambda t: t.LevitConfig(), 224,
         "pooler_output"),
        ("pvt_v2", "PvtV2Model", lambda t: t.PvtV2Config(), 224,
         "last_hidden_state"),
        ("hiera", "HieraModel", lambda t: t.HieraConfig(
            embed_dim=48, depths=[1, 2, 3, 1], num_heads=[1, 2, 4, 8]), 224,
         "pooler_output")]:
    arch("w3_hf_" + _n, "transformers 5.23 %s (small config) @%d" % (_cls, _size))(
        wave2_hf_vision("w3_hf_" + _n, _cfg, _cls, _size, _key))

arch("w3_hf_data2vec_audio",
     "transformers 5.23 Data2VecAudioModel (small), 1 s audio")(
    wave2_audio("w3_hf_data2vec_audio", "Data2VecAudioModel",
                lambda t: t.Data2VecAudioConfig(**_W2V)))
arch("w3_hf_w2v2_conformer",
     "transformers 5.23 Wav2Vec2ConformerModel (small, rotary), 1 s audio")(
    wave2_audio("w3_hf_w2v2_conformer", "Wav2Vec2ConformerModel",
                lambda t: t.Wav2Vec2ConformerConfig(
                    **dict(_W2V, position_embeddings_type="rotary"))))


# ---------------------------------------------------------------------------
# Dynamic-shape variants: what users' exports look like (symbolic batch and
# sequence dims); check-models binds them with --input-shape.
# ---------------------------------------------------------------------------
DYNAMIC = {
    "tv_resnet18": {"input": {0: "batch"}},
    "hf_bert": {"input_ids": {0: "batch", 1: "seq"},
                "attention_mask": {0: "batch", 1: "seq"},
                "token_type_ids": {0: "batch", 1: "seq"}},
    "hf_llama_prefill": {"input_ids": {0: "batch", 1: "seq"},
                         "attention_mask": {0: "batch", 1: "seq"}},
    "rnn_lstm_tagger": {"tokens": {0: "batch", 1: "seq"}},
}


def export(name, spec, exporter, out_dir, dynamic):
    """One export; returns the manifest entry."""
    model, feeds, info = spec["fn"]()
    if dynamic:
        # A batch of two: torch.export specialises dimensions of size 1.
        feeds = [(n, torch.cat([t, t.flip(0)]) if 0 in dynamic.get(n, {})
                  and dynamic[n][0] == "batch" else t) for n, t in feeds]
    names = [n for n, _ in feeds]
    args = tuple(t for _, t in feeds)
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    entry = {"name": name, "arch": name.split("__")[0],
             "source": spec["source"], "kind": "generated",
             "exporter": exporter + ("+dynamic" if dynamic else ""),
             "weights": "random, torch.manual_seed(0)"}
    kw = dict(input_names=names, output_names=info.get("output_names"))
    t0 = time.perf_counter()
    log = io.StringIO()
    fast = torch.backends.mha.get_fastpath_enabled()
    try:
        torch.backends.mha.set_fastpath_enabled(not spec.get("nofastpath"))
        with torch.no_grad(), warnings.catch_warnings(), \
                contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            warnings.simplefilter("ignore")
            if exporter.startswith("dynamo"):
                if dynamic:
                    # Dim.DYNAMIC: torch infers the ranges (position
                    # tables bound the sequence) and equal dims across inputs.
                    specs = tuple(
                        {a: torch.export.Dim.DYNAMIC for a in dynamic.get(n, {})}
                        or None for n in names)
                    # forward(*args) takes all inputs as one argument.
                    import inspect
                    params = list(inspect.signature(
                        model.forward).parameters.values())
                    if len(params) == 1 and \
                            params[0].kind == params[0].VAR_POSITIONAL:
                        specs = (specs,)
                    kw["dynamic_shapes"] = specs
                if exporter != "dynamo":  # dynamo<N>: opset N
                    kw["opset_version"] = int(exporter[len("dynamo"):])
                torch.onnx.export(model, args, path, dynamo=True,
                                  external_data=False, **kw)
            else:
                if dynamic:
                    kw["dynamic_axes"] = dynamic
                torch.onnx.export(model, args, path, dynamo=False,
                                  opset_version=LEGACY_OPSET,
                                  do_constant_folding=True, **kw)
    except Exception as e:  # noqa: BLE001 - recorded in the manifest
        entry.update(status="export-failed", error=zoo_common.short_error(e),
                     export_s=round(time.perf_counter() - t0, 1))
        with open(os.path.join(d, "export-error.txt"), "w") as f:
            f.write(traceback.format_exc())
            f.write("\n--- exporter output ---\n" + log.getvalue())
        if os.path.exists(path):
            os.remove(path)
        return entry
    finally:
        torch.backends.mha.set_fastpath_enabled(fast)
    entry["export_s"] = round(time.perf_counter() - t0, 1)
    np_feeds = [(n, t.numpy()) for n, t in feeds]
    # The exporter may drop inputs it folded away or reorder them.
    import onnx
    m = onnx.load(path, load_external_data=False)
    graph_names = [n for n, _, _ in zoo_common.graph_inputs(m)]
    by_name = dict(np_feeds)
    missing = [n for n in graph_names if n not in by_name]
    if missing:
        entry.update(status="export-failed",
                     error="exported graph has inputs %s that were not fed"
                     % missing)
        return entry
    dropped = [n for n in names if n not in graph_names]
    if dropped:
        entry["inputs_dropped_by_exporter"] = dropped
    feeds2 = [(n, by_name[n]) for n in graph_names]
    return zoo_common.write_model_dir(out_dir, name, path, feeds2, entry)


def main():
    ap = argparse.ArgumentParser(
        description="Exports the generated model zoo (seeded random weights)")
    ap.add_argument("--out", required=False)
    ap.add_argument("--only", help="comma-separated architecture names")
    ap.add_argument("--exporters", default="dynamo,legacy17")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--skip-existing", action="store_true",
                    help="skip exports already in the manifest")
    ap.add_argument("--no-dynamic", action="store_true",
                    help="skip the dynamic-shape variants")
    ap.add_argument("--dynamic-only", action="store_true",
                    help="only the dynamic-shape variants")
    ap.add_argument("--manifest-tsv", help="also write the manifest as TSV")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads while exporting (default 1)")
    args = ap.parse_args()
    if args.list:
        for n, s in ARCHS.items():
            print("%-36s %s" % (n, s["source"]))
        return 0
    if not args.out:
        ap.error("--out DIR is required")
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    if only and only - set(ARCHS):
        ap.error("unknown architectures: %s" % ", ".join(sorted(only - set(ARCHS))))
    exporters = args.exporters.split(",")
    have = {e["name"] for e in zoo_common.read_manifest(args.out)} \
        if args.skip_existing else set()
    jobs = []
    for n in ARCHS:
        if only and n not in only:
            continue
        for ex in exporters:
            if not args.dynamic_only:
                jobs.append((n, ex, None))
            if n in DYNAMIC and not args.no_dynamic:
                jobs.append((n, ex, DYNAMIC[n]))
    for n, ex, dyn in jobs:
        name = "%s__%s%s" % (n, ex, "_dynamic" if dyn else "")
        if name in have:
            continue
        t0 = time.perf_counter()
        try:
            entry = export(name, ARCHS[n], ex, args.out, dyn)
        except Exception as e:  # noqa: BLE001 - building the torch model
            entry = {"name": name, "arch": n, "source": ARCHS[n]["source"],
                     "kind": "generated", "exporter": ex,
                     "status": "build-failed",
                     "error": zoo_common.short_error(traceback.format_exc())}
            del e
        zoo_common.update_manifest(args.out, [entry])
        print("%-48s %-14s %6.1fs opset %-4s %s" % (
            name, entry["status"], time.perf_counter() - t0,
            entry.get("opset", "-"), entry.get("error", "")), flush=True)
    if args.manifest_tsv:
        with open(args.manifest_tsv, "w") as f:
            f.write(zoo_common.manifest_tsv(
                [e for e in zoo_common.read_manifest(args.out)
                 if e.get("kind") == "generated"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
