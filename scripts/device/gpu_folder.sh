# Sourced by the device scripts: gpu_folder KGATE prints this GPU's receipts folder, named by its
# architecture and model ("NVIDIA H100 80GB HBM3", compute capability 9.0 -> receipts/sm_90/h100).
gpu_folder() {
  "$1" env --backend cuda | python3 -c '
import json, re, sys
g = json.load(sys.stdin)["gpus"][0]
m = re.search(r"\b([A-Z]+[0-9]+[A-Z]?)\b", g["name"].replace("NVIDIA", ""))
print("receipts/sm_" + g["compute_capability"].replace(".", "") + "/" + m.group(1).lower())'
}
