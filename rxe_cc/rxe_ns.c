// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_ns.c: network-namespace support for rdma_rxe (patch 0001; it does
 * not depend on the congestion-control engine).
 *
 * A network namespace gets its own pair of RoCEv2 receive sockets (UDP
 * 4791, IPv4 and IPv6) when its first rxe device is created, and loses
 * them with its last, so an rxe device on a netdev of any namespace
 * receives there and namespaces without one keep the port free; routes
 * are looked up in the namespace of the device's netdev (patch 0001).
 *
 * A device holds its namespace's sockets from rxe_net_add() until the
 * first of NETDEV_UNREGISTER of its netdev (namespace deletion or a move:
 * the namespace still exists then, while ib_core frees the device later,
 * asynchronously) and its deallocation (rdma link delete).  It also
 * holds its netdev meanwhile, so the namespace outlives the hold.
 */

#include <linux/module.h>
#include <linux/net.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include <net/udp_tunnel.h>

#include "rxe.h"
#include "rxe_ns.h"

struct rxe_ns_net {
	struct socket *sk4;
	struct socket *sk6;
	unsigned int users;	/* rxe devices of the namespace */
};

/* users and the sockets of every namespace; taken inside RTNL */
static DEFINE_MUTEX(rxe_ns_lock);

static unsigned int rxe_ns_net_id __read_mostly;

static struct socket *rxe_ns_udp_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl = {
		.encap_type = 1,
		.encap_rcv = rxe_udp_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.ipv6_v6only = ipv6,
		.local_udp_port = htons(ROCE_V2_UDP_DPORT),
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(net, &cfg, &sock);
	if (err < 0)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tnl);
	return sock;
}

static int rxe_ns_open(struct net *net, struct rxe_ns_net *rn)
{
	struct socket *sock;

	sock = rxe_ns_udp_open(net, false);
	if (IS_ERR(sock)) {
		pr_err("rxe: no IPv4 UDP %d socket in a namespace: %ld\n",
		       ROCE_V2_UDP_DPORT, PTR_ERR(sock));
		return PTR_ERR(sock);
	}
	rn->sk4 = sock;

	if (!IS_ENABLED(CONFIG_IPV6))
		return 0;
	sock = rxe_ns_udp_open(net, true);
	if (IS_ERR(sock)) {
		/* IPv6 disabled (ipv6.disable=1): IPv4 only */
		if (PTR_ERR(sock) == -EAFNOSUPPORT)
			return 0;
		udp_tunnel_sock_release(rn->sk4);
		rn->sk4 = NULL;
		return PTR_ERR(sock);
	}
	rn->sk6 = sock;
	return 0;
}

static void rxe_ns_close(struct rxe_ns_net *rn)
{
	if (rn->sk6)
		udp_tunnel_sock_release(rn->sk6);
	if (rn->sk4)
		udp_tunnel_sock_release(rn->sk4);
	rn->sk4 = NULL;
	rn->sk6 = NULL;
}

/* A new device of @ndev's namespace: open its sockets if it is the first. */
int rxe_ns_get(struct rxe_dev *rxe, struct net_device *ndev)
{
	struct net *net = dev_net(ndev);
	struct rxe_ns_net *rn = net_generic(net, rxe_ns_net_id);
	int err = 0;

	mutex_lock(&rxe_ns_lock);
	if (!rn->users)
		err = rxe_ns_open(net, rn);
	if (!err) {
		rn->users++;
		dev_hold(ndev);
		rxe->ns_ndev = ndev;
		rxe->ns_net = net;
	}
	mutex_unlock(&rxe_ns_lock);
	return err;
}

/* The device's hold ends (once; later calls do nothing). */
void rxe_ns_put(struct rxe_dev *rxe)
{
	struct rxe_ns_net *rn;

	mutex_lock(&rxe_ns_lock);
	if (rxe->ns_ndev) {
		rn = net_generic(rxe->ns_net, rxe_ns_net_id);
		if (!WARN_ON(!rn->users) && !--rn->users)
			rxe_ns_close(rn);
		dev_put(rxe->ns_ndev);
		rxe->ns_ndev = NULL;
		rxe->ns_net = NULL;
	}
	mutex_unlock(&rxe_ns_lock);
}

/* Nothing should be left: every device let go at NETDEV_UNREGISTER. */
static void __net_exit rxe_ns_net_exit(struct net *net)
{
	struct rxe_ns_net *rn = net_generic(net, rxe_ns_net_id);

	mutex_lock(&rxe_ns_lock);
	rn->users = 0;
	rxe_ns_close(rn);
	mutex_unlock(&rxe_ns_lock);
}

static struct pernet_operations rxe_ns_net_ops = {
	.exit = rxe_ns_net_exit,
	.id = &rxe_ns_net_id,
	.size = sizeof(struct rxe_ns_net),
};

/*
 * A QP's socket only caches the route and owns the skbs the QP sends;
 * routes are looked up in the device's namespace whatever the socket's.
 * It stays in init_net: in the device's namespace it would either pin the
 * namespace (ib_core's own GSI QP would then keep it alive for ever) or,
 * as a kernel socket without a reference, could be released after the
 * namespace is freed.
 */
int rxe_ns_qp_sock(struct rxe_dev *rxe, struct socket **sockp)
{
	return sock_create_kern(&init_net, AF_INET, SOCK_DGRAM, 0, sockp);
}

int rxe_ns_init(void)
{
	return register_pernet_subsys(&rxe_ns_net_ops);
}

void rxe_ns_exit(void)
{
	unregister_pernet_subsys(&rxe_ns_net_ops);
}
