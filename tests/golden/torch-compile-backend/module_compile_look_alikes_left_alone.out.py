import re

import tensorflow as tf
import torch

pattern = re.compile(r"cuda:\d+")
keras_model = tf.keras.Sequential()
keras_model.compile(optimizer="adam", loss="mse", metrics=["mae"])
query = "SELECT 1".compile()
objects = compiler.compile([source], output_dir=tmp, extra_preargs=cflags)
