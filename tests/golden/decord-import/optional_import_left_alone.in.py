try:
    import decord
except ImportError:
    decord = None

import cv2

print("decord is optional")
