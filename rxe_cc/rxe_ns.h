/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxe_ns: RoCEv2 receive sockets per network namespace for rdma_rxe
 * (rxe_ns.c, hooked in by patch 0001, independent of rxe_cc).
 */
#ifndef RXE_NS_H
#define RXE_NS_H

struct net;
struct net_device;
struct rxe_dev;
struct sk_buff;
struct sock;
struct socket;

int rxe_ns_qp_sock(struct rxe_dev *rxe, struct socket **sockp);
int rxe_ns_get(struct rxe_dev *rxe, struct net_device *ndev);
void rxe_ns_put(struct rxe_dev *rxe);
int rxe_ns_init(void);
void rxe_ns_exit(void);
/* rxe_net.c's receive function, given to the namespaces' sockets */
int rxe_udp_encap_recv(struct sock *sk, struct sk_buff *skb);

#endif /* RXE_NS_H */
