package io.groupkeeper.zkprotocol;

/** ZooKeeper's result codes that the store inspects (the rest map to {@link #OTHER}). */
public enum ZkCode {
    OK,
    NONODE,
    NODEEXISTS,
    BADVERSION,
    NOTEMPTY,
    NOCHILDRENFOREPHEMERALS,
    CONNECTIONLOSS,
    SESSIONEXPIRED,
    OPERATIONTIMEOUT,
    NOAUTH,
    UNIMPLEMENTED,
    MARSHALLINGERROR,
    OTHER
}
