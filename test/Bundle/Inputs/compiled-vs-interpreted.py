# compiled-vs-interpreted.py PLUMB MODELS OUT: compiles every shared model
# and compares `plumb run BUNDLE --threads T` (T = 1, 2, 4) with
# `plumb run MODEL.onnx --interpret` on every test data set.
import os
import subprocess
import sys

plumb, models, out = sys.argv[1:4]
device = "cpu"
only = None
args = sys.argv[4:]
while args:
    if args[0] == "--device":
        device, args = args[1], args[2:]
    elif args[0] == "--only":
        only, args = set(args[1].split(",")), args[2:]
    else:
        sys.exit("compiled-vs-interpreted.py: unknown argument " + args[0])
OPTS = {
    "silero_vad_v5": ["--input-shape", "input=1x576", "--input-shape",
                      "state=2x1x128", "--input-value", "sr=16000"],
    "magika_standard_v3_3": ["--dim", "unk__214=1"],
}
names = sorted(f[:-5] for f in os.listdir(models) if f.endswith(".onnx"))
if only:
    names = [n for n in names if n in only]
threads_list = ("1", "2", "4") if device == "cpu" else ("1",)
status = 0
for name in names:
    model = os.path.join(models, name + ".onnx")
    bundle = os.path.join(out, name + ".plumb")
    subprocess.run([plumb, "compile", model, "-o", bundle, "--target", device,
                    "--quiet"] + OPTS.get(name, []), check=True,
                   stdout=subprocess.DEVNULL)
    data_root = os.path.join(models, "testdata", name)
    ok = True
    for ds in sorted(os.listdir(data_root)):
        data = os.path.join(data_root, ds)
        ref = subprocess.run([plumb, "run", model, "--interpret", "--inputs-dir",
                              data] + OPTS.get(name, []), check=True,
                             capture_output=True, text=True).stdout
        for threads in threads_list:
            got = subprocess.run([plumb, "run", bundle, "--inputs-dir", data,
                                  "--threads", threads, "--device", device],
                                 check=True,
                                 capture_output=True, text=True).stdout
            if got != ref:
                ok = False
                print("%s %s threads %s: DIFFER\n%s%s" % (name, ds, threads, got, ref))
    if ok:
        if device == "cpu":
            print("%s: compiled == interpreted at 1, 2, 4 threads" % name)
        else:
            print("%s: compiled (%s) == interpreted" % (name, device))
    else:
        status = 1
sys.exit(status)
