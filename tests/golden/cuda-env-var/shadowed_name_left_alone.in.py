def getenv(name):
    return name


visible = getenv("CUDA_VISIBLE_DEVICES")
table = {"CUDA_VISIBLE_DEVICES": "0"}
