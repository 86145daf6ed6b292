import os

os.environ["ASCEND_RT_VISIBLE_DEVICES"] = "0,1"
os.environ["HCCL_CONNECT_TIMEOUT"] = "30"
