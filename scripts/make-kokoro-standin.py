#!/usr/bin/python3
"""A stand-in for the Kokoro-82M v1.0 model, for tests and benches.

Writes OUT_DIR with the layout kokoro-js loads (that of
onnx-community/Kokoro-82M-v1.0-ONNX): config.json, tokenizer.json,
tokenizer_config.json and onnx/model.onnx. The tokenizer is Kokoro v1.0's
phoneme vocabulary; the graph has the real model's inputs and output
(input_ids int64 [1, n], style float32 [1, 256], speed float32 [1] ->
waveform float32 [samples]) but computes a tone per token instead of speech:

  token i (pad tokens, id 0, are silent) lasts floor(SAMPLES_PER_TOKEN / speed)
  samples at 24 kHz, a sine from phase 0 at
  BASE_HZ + ID_HZ * id + STYLE_HZ * style[0, 0], amplitude AMPLITUDE.

So the audio's length tells how many tokens the tokenizer made, each
segment's frequency tells which token it was and which style row came with
it, and nothing about it is the real model's speed or sound. The figures
below are mirrored in test/helpers/kokoro-standin.ts.

Usage: /usr/bin/python3 scripts/make-kokoro-standin.py OUT_DIR
(Debian's python3-onnx; a pyenv python3 on PATH does not see it.)
"""
import json
import os
import sys

import onnx
from onnx import TensorProto, helper

SAMPLE_RATE = 24_000
SAMPLES_PER_TOKEN = 1800  # 75 ms a token: a sentence lasts seconds, as speech does
BASE_HZ = 1000.0
ID_HZ = 10.0
STYLE_HZ = 1000.0  # style[0, 0] of the voices is within about +-0.9: tones stay above 100 Hz
AMPLITUDE = 0.5
STYLE_DIM = 256
# onnx 1.12 (Debian 12) writes up to opset 17; onnxruntime-node 1.21
# (transformers.js's pin) and 1.30 (the project's) both run it.
OPSET = 17

PAD = "$"
# Kokoro v1.0's phoneme vocabulary (its config.json "vocab"): a symbol per
# id, with gaps where the v0.19 symbols that v1.0 dropped were. Grouped as
# in the model's config: punctuation and space, extra symbols, the Latin
# letters it uses, then IPA.
VOCAB = {
    PAD: 0,
    ";": 1, ":": 2, ",": 3, ".": 4, "!": 5, "?": 6, "\u2014": 9, "\u2026": 10,
    '"': 11, "(": 12, ")": 13, "\u201c": 14, "\u201d": 15, " ": 16,
    "\u0303": 17, "\u02a3": 18, "\u02a5": 19, "\u02a6": 20, "\u02a8": 21,
    "\u1d5d": 22, "\uab67": 23,
    "A": 24, "I": 25, "O": 31, "Q": 33, "S": 35, "T": 36, "W": 39, "Y": 41,
    "\u1d4a": 42,
    "a": 43, "b": 44, "c": 45, "d": 46, "e": 47, "f": 48, "h": 50, "i": 51,
    "j": 52, "k": 53, "l": 54, "m": 55, "n": 56, "o": 57, "p": 58, "q": 59,
    "r": 60, "s": 61, "t": 62, "u": 63, "v": 64, "w": 65, "x": 66, "y": 67,
    "z": 68,
    "\u0251": 69, "\u0250": 70, "\u0252": 71, "\u00e6": 72, "\u03b2": 75,
    "\u0254": 76, "\u0255": 77, "\u00e7": 78, "\u0256": 80, "\u00f0": 81,
    "\u02a4": 82, "\u0259": 83, "\u025a": 85, "\u025b": 86, "\u025c": 87,
    "\u025f": 90, "\u0261": 92, "\u0265": 99, "\u0268": 101, "\u026a": 102,
    "\u029d": 103, "\u026f": 110, "\u0270": 111, "\u014b": 112, "\u0273": 113,
    "\u0272": 114, "\u0274": 115, "\u00f8": 116, "\u0278": 118, "\u03b8": 119,
    "\u0153": 120, "\u0279": 123, "\u027e": 125, "\u027b": 126, "\u0281": 128,
    "\u027d": 129, "\u0282": 130, "\u0283": 131, "\u0288": 132, "\u02a7": 133,
    "\u028a": 135, "\u028b": 136, "\u028c": 138, "\u0263": 139, "\u0264": 140,
    "\u03c7": 142, "\u028e": 143, "\u0292": 147, "\u0294": 148,
    "\u02c8": 156, "\u02cc": 157, "\u02d0": 158, "\u02b0": 162, "\u02b2": 164,
    "\u2193": 169, "\u2192": 171, "\u2197": 172, "\u2198": 173, "\u1d7b": 177,
}


def tokenizer_json():
    """A character-level tokenizer for transformers.js: symbols outside the
    vocabulary are removed, every remaining character is one token, and the
    pad symbol goes at both ends."""
    in_class = "".join("\\" + s if s in "\\]^-" else s for s in VOCAB)
    pad = {"SpecialToken": {"id": PAD, "type_id": 0}}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": 0, "content": PAD, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
        ],
        "normalizer": {"type": "Replace", "pattern": {"Regex": f"[^{in_class}]"}, "content": ""},
        # An empty pattern matches between every two characters.
        "pre_tokenizer": {"type": "Split", "pattern": {"Regex": ""}, "behavior": "Isolated", "invert": False},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [pad, {"Sequence": {"id": "A", "type_id": 0}}, pad],
            "pair": [pad, {"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, pad],
            "special_tokens": {PAD: {"id": PAD, "ids": [0], "tokens": [PAD]}},
        },
        "decoder": None,
        # No "type": transformers.js takes a plain symbol -> id map as is.
        "model": {"vocab": VOCAB},
    }


TOKENIZER_CONFIG = {
    # 510 phonemes and the two pads: the model's context.
    "model_max_length": 512,
    "pad_token": PAD,
    "unk_token": PAD,
    "tokenizer_class": "PreTrainedTokenizer",
}

CONFIG = {"model_type": "style_text_to_speech_2"}


def const(name, values, dtype=TensorProto.FLOAT, dims=None):
    """A Constant node; a single number is a scalar unless `dims` says otherwise."""
    if not isinstance(values, list):
        values = [values]
    shape = [] if dims is None else dims
    return helper.make_node("Constant", [], [name], value=helper.make_tensor(name + "_value", dtype, shape, values))


def graph():
    nodes = [
        const("samples_per_token", float(SAMPLES_PER_TOKEN), dims=[1]),
        const("base_hz", BASE_HZ),
        const("id_hz", ID_HZ),
        const("style_hz", STYLE_HZ),
        const("amplitude", AMPLITUDE),
        const("radians_per_sample", 2.0 * 3.141592653589793 / SAMPLE_RATE),
        const("zero_f", 0.0),
        const("zero_i", 0, TensorProto.INT64),
        const("one_i", 1, TensorProto.INT64),
        const("flat", [-1], TensorProto.INT64, [1]),
        const("scalar", [], TensorProto.INT64, [0]),
        # Per-token length: floor(SAMPLES_PER_TOKEN / speed), as an integer.
        helper.make_node("Div", ["samples_per_token", "speed"], ["per_token_f"]),
        helper.make_node("Floor", ["per_token_f"], ["per_token_floor"]),
        helper.make_node("Cast", ["per_token_floor"], ["per_token"], to=TensorProto.INT64),
        # Sample s belongs to token s div per_token, at local index s mod per_token.
        helper.make_node("Reshape", ["input_ids", "flat"], ["ids"]),
        helper.make_node("Shape", ["ids"], ["tokens"]),
        helper.make_node("Mul", ["tokens", "per_token"], ["total_1"]),
        helper.make_node("Reshape", ["total_1", "scalar"], ["total"]),
        helper.make_node("Range", ["zero_i", "total", "one_i"], ["s"]),
        helper.make_node("Div", ["s", "per_token"], ["token_of_s"]),
        helper.make_node("Mul", ["token_of_s", "per_token"], ["token_start"]),
        helper.make_node("Sub", ["s", "token_start"], ["local"]),
        helper.make_node("Gather", ["ids", "token_of_s"], ["id_of_s"], axis=0),
        helper.make_node("Cast", ["id_of_s"], ["id_f"], to=TensorProto.FLOAT),
        # Frequency: BASE_HZ + ID_HZ * id + STYLE_HZ * style[0, 0].
        helper.make_node("Reshape", ["style", "flat"], ["style_flat"]),
        helper.make_node("Gather", ["style_flat", "zero_i"], ["style_0"], axis=0),
        helper.make_node("Mul", ["style_0", "style_hz"], ["style_shift"]),
        helper.make_node("Mul", ["id_f", "id_hz"], ["id_shift"]),
        helper.make_node("Add", ["id_shift", "base_hz"], ["hz_no_style"]),
        helper.make_node("Add", ["hz_no_style", "style_shift"], ["hz"]),
        helper.make_node("Cast", ["local"], ["local_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["hz", "local_f"], ["cycles_x"]),
        helper.make_node("Mul", ["cycles_x", "radians_per_sample"], ["phase"]),
        helper.make_node("Sin", ["phase"], ["tone"]),
        # Pads are silent.
        helper.make_node("Greater", ["id_f", "zero_f"], ["voiced_b"]),
        helper.make_node("Cast", ["voiced_b"], ["voiced"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["voiced", "amplitude"], ["gain"]),
        helper.make_node("Mul", ["tone", "gain"], ["waveform"]),
    ]
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "sequence_length"]),
        helper.make_tensor_value_info("style", TensorProto.FLOAT, [1, STYLE_DIM]),
        helper.make_tensor_value_info("speed", TensorProto.FLOAT, [1]),
    ]
    outputs = [helper.make_tensor_value_info("waveform", TensorProto.FLOAT, ["num_samples"])]
    return helper.make_graph(nodes, "kokoro_standin", inputs, outputs)


def model():
    m = helper.make_model(graph(), opset_imports=[helper.make_opsetid("", OPSET)], producer_name="desktop-assistant scripts/make-kokoro-standin.py")
    m.doc_string = "A stand-in for Kokoro-82M v1.0: a tone per token, not speech."
    onnx.checker.check_model(m, full_check=True)
    return m


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, indent=2)
        f.write("\n")


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: make-kokoro-standin.py OUT_DIR\n")
        return 2
    out = argv[1]
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    write_json(os.path.join(out, "config.json"), CONFIG)
    write_json(os.path.join(out, "tokenizer.json"), tokenizer_json())
    write_json(os.path.join(out, "tokenizer_config.json"), TOKENIZER_CONFIG)
    onnx.save(model(), os.path.join(out, "onnx", "model.onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
